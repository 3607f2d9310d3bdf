// A module loaded by its specifier when a call first needs it: a package only some calls use
// (execa, the docker CLI's runner) or a file a setting names (a test's fake SDK). The plugin's
// bundle (provider/bundle.ts) holds this module apart, as a CommonJS file of its own compiled by
// Node: the bundle's code comes from V8's cache (provider/start-cache.ts), and on Node 20 an
// import() in code from that cache fails ("A dynamic import callback was not specified").

/** The module at `specifier` (a package's name, or a file: URL), loaded as an ES import. */
export function loadModule<T>(specifier: string): Promise<T> {
  return import(specifier);
}
