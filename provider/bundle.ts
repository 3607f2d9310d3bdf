// Run by the build (npm run build, npm run setup) after tsc: the provider the plugin makes at its
// first call (start.ts, as tsc compiled it) and everything it imports of this package, with the few
// packages a preview's first call needs, bundled by esbuild into one CommonJS file beside it
// (bundle-load.ts loads it): one file read and compiled, where its modules were some three hundred
// ES modules resolved, read and linked one by one before the first Diff. Every module in it stays
// as lazy as it was: esbuild runs a module imported by import() only when that import runs, and,
// CommonJS, a package left outside is required where its import runs (an ES bundle hoists them all
// to its top, the Pulumi SDK and TypeScript behind it at every start). Every other package stays
// outside, loaded by Node when (if ever) a call needs it: the Pulumi SDK (a construct's), the
// vendors' SDKs, execa, the engine's protos. The bundle's code is served from the start cache
// (start-cache.ts), where an import() fails on Node 20: so the bundle holds none, and a module
// loaded at run time goes through src/load-module.ts, made a CommonJS file of its own beside the
// bundle (LOADER), which Node compiles.
import { build, type Plugin } from "esbuild";
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUNDLE } from "./bundle-load.js";

/** The packages inside the bundle: those a preview's first call loads. */
export const BUNDLED_PACKAGES = ["zod", "undici", "ws"];

const packageOf = (request: string) => request.split("/", request.startsWith("@") ? 2 : 1).join("/");

/**
 * zod's locales, English alone: zod's namespace holds every language's messages (a sixth of the
 * bundle, read and hashed on every start), and the library sets none but zod's default, English.
 */
const english: Plugin = {
  name: "english",
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (a) => ({
      contents: 'export { default as en } from "./en.js";',
      loader: "js",
      resolveDir: dirname(a.path),
    }));
  },
};

/** src/load-module.ts as the bundle requires it, beside the bundle: the one place its import() runs. */
const LOADER = "load-module.cjs";

/** Every package but BUNDLED_PACKAGES left to Node, and the run-time loader too (LOADER). */
const outside: Plugin = {
  name: "outside",
  setup(b) {
    b.onResolve({ filter: /^[^./]/ }, (a) => (BUNDLED_PACKAGES.includes(packageOf(a.path)) ? undefined : { external: true }));
    b.onResolve({ filter: /[\\/]load-module\.js$/ }, () => ({ path: `./${LOADER}`, external: true }));
  },
};

/** Bundles dist/provider/start.js into `outfile` (default: BUNDLE beside this module); gives esbuild's metafile. */
export async function bundleStart(outfile = fileURLToPath(new URL(BUNDLE, import.meta.url))) {
  const made = await build({
    entryPoints: [fileURLToPath(new URL("start.js", import.meta.url))],
    outfile,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    // A module's URL is the bundle's, which sits where start.js does: its paths (package.json
    // above it, the daemons in dist/, node_modules) resolve as they did from its own module.
    banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: { "import.meta.url": "__bundleUrl" },
    plugins: [english, outside],
    // A quarter of the source less to read and hash at every start; names are kept for stacks.
    minifyWhitespace: true,
    metafile: true,
    write: false,
    logLevel: "warning",
  });
  // An import() esbuild left (of a package outside, or of a specifier known at run time alone)
  // would fail once its code comes from the start cache: the build fails instead.
  for (const f of made.outputFiles) {
    const left = f.text.match(/(?<![\w$.])import\([^)]{0,60}/g);
    if (left) throw new Error(`the provider's bundle holds ${left.join(", ")}: load that module through src/load-module.ts`);
  }
  await build({
    entryPoints: [fileURLToPath(new URL("../src/load-module.js", import.meta.url))],
    outfile: join(dirname(outfile), LOADER),
    platform: "node",
    format: "cjs",
    target: "node20",
    logLevel: "warning",
  });
  for (const f of made.outputFiles) writeFileSync(f.path, f.contents);
  return made.metafile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await bundleStart();
