// V8's compiled code for the CommonJS modules the plugin loads before its first answer (gRPC and the
// Pulumi protos before its port, then the provider's bundle), kept beside the build: the engine
// starts the plugin on every preview and for each operation, and compiling those 2.4 MB of
// JavaScript again each time was a third of its first answer. Node 20 has no compile cache of its
// own (module.enableCompileCache is Node 22), so the start compiles these modules through vm.Script
// with the cached data; any other module loads as Node loads it. An entry is found by the module's
// path inside node_modules, or inside the cache's own folder (so the cache serves the package where
// it is installed too), and used only for the very source it was made from (its hash), since V8
// checks a source's length alone; a cache made by another Node is refused by V8 and then costs
// nothing but its read. Code from the cache cannot import(): Node 20 keeps no import callback with
// it, so a cached module must hold none (the bundle's are checked by its build, provider/bundle.ts).
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import Module from "node:module";
import { dirname, relative, sep } from "node:path";
import { deserialize, serialize } from "node:v8";
import vm from "node:vm";

type Compile = (this: NodeJS.Module, content: string, filename: string) => unknown;

// Node's loader, as every CommonJS hook (ts-node, pirates) reaches it.
const loader = Module as unknown as {
  prototype: { _compile: Compile };
  wrap(source: string): string;
  _resolveFilename(request: string, parent: NodeJS.Module, isMain: boolean, options?: { paths?: string[] }): string;
  _resolveLookupPaths(request: string, parent: NodeJS.Module): string[] | null;
  _cache: NodeJS.Require["cache"];
  _extensions: NodeJS.Require["extensions"];
};

interface Entry {
  /** The module's path inside the cache's folder (from `./`), else inside node_modules (from its package's folder on). */
  module: string;
  /** sha256 of the source the code was compiled from. */
  source: string;
  code: Uint8Array;
}

export interface StartCacheReport {
  /** Modules compiled from the cache. */
  used: number;
  /** Modules whose entry V8 refused (another Node or V8). */
  refused: number;
  /** Modules with an entry made from another source. */
  stale: number;
}

const digest = (content: string) => createHash("sha256").update(content).digest("hex");
const NODE_MODULES = `${sep}node_modules${sep}`;
/** A module's entry: its path inside `folder` (the cache's, the build's own modules), else inside node_modules, else its own. */
const moduleKey = (folder: string, filename: string) => {
  const inside = relative(folder, filename);
  if (!inside.startsWith("..") && !inside.startsWith(sep) && !`${sep}${inside}`.includes(NODE_MODULES)) return `.${sep}${inside}`;
  const at = filename.lastIndexOf(NODE_MODULES);
  return at < 0 ? filename : filename.slice(at + NODE_MODULES.length);
};

/** The module's function compiled from its source (and the cached code, when given), run as Node runs it. */
function run(mod: NodeJS.Module, content: string, filename: string, cachedData?: Uint8Array): vm.Script {
  const script = new vm.Script(loader.wrap(content), {
    filename,
    cachedData: cachedData && Buffer.from(cachedData.buffer, cachedData.byteOffset, cachedData.byteLength),
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const wrapper = script.runInThisContext({ displayErrors: true }) as (...args: unknown[]) => unknown;
  const require = ((id: string) => mod.require(id)) as NodeJS.Require;
  require.resolve = Object.assign((request: string, options?: { paths?: string[] }) => loader._resolveFilename(request, mod, false, options), {
    paths: (request: string) => loader._resolveLookupPaths(request, mod),
  });
  require.main = process.mainModule;
  require.cache = loader._cache;
  require.extensions = loader._extensions;
  wrapper.call(mod.exports, mod.exports, require, mod, filename, dirname(filename));
  return script;
}

/** Swaps Node's compile for one hook until the returned function puts it back. */
function hooked(compile: (original: Compile) => Compile): () => void {
  const original = loader.prototype._compile;
  loader.prototype._compile = compile(original);
  return () => {
    loader.prototype._compile = original;
  };
}

/**
 * Compiles the modules the cache at `file` holds from it, until the returned function is called,
 * which gives back what it did. A cache that is missing or unreadable means none is used.
 */
export function useStartCache(file: string): () => StartCacheReport {
  const report: StartCacheReport = { used: 0, refused: 0, stale: 0 };
  let entries: Map<string, Entry>;
  try {
    entries = new Map((deserialize(readFileSync(file)) as Entry[]).map((e) => [e.module, e]));
  } catch {
    return () => report;
  }
  const restore = hooked(
    (original) =>
      function (this: NodeJS.Module, content, filename) {
        const entry = entries.get(moduleKey(dirname(file), filename));
        if (!entry) return original.call(this, content, filename);
        if (entry.source !== digest(content)) {
          report.stale++;
          return original.call(this, content, filename);
        }
        const script = run(this, content, filename, entry.code);
        if (script.cachedDataRejected) report.refused++;
        else report.used++;
      },
  );
  return () => {
    restore();
    entries.clear(); // the cache's bytes are not kept past the start
    return report;
  };
}

/**
 * Runs `load` with every CommonJS module it compiles recorded, then writes their compiled code
 * (with what ran of it) to `file`, whole or not at all. Gives the number of modules written.
 */
export async function recordStartCache(file: string, load: () => Promise<unknown>): Promise<number> {
  const seen: Array<{ filename: string; content: string; script: vm.Script }> = [];
  const restore = hooked(
    () =>
      function (this: NodeJS.Module, content, filename) {
        seen.push({ filename, content, script: run(this, content, filename) });
      },
  );
  try {
    await load();
  } finally {
    restore();
  }
  const entries: Entry[] = seen.map(({ filename, content, script }) => ({
    module: moduleKey(dirname(file), filename),
    source: digest(content),
    code: script.createCachedData(),
  }));
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, serialize(entries));
  renameSync(partial, file);
  return entries.length;
}
