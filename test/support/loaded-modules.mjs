// Preloaded into a plugin by test/pulumi/plugin-first-call.test.ts (NODE_OPTIONS=--import, which is
// no V8 flag): writes every ES module the plugin loads as it loads it, and on SIGUSR2 every CommonJS
// module it has loaded (require's cache), one `esm <url>` or `cjs <path>` a line, to the file
// AGENTRUN_LOADED_MODULES names; then the plugin exits.
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";

const out = process.env.AGENTRUN_LOADED_MODULES;
const hooks = `import { appendFileSync } from "node:fs";
let out;
export function initialize(data) { out = data.out; }
export async function load(url, context, next) { appendFileSync(out, "esm " + url + "\\n"); return next(url, context); }`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { out } });

process.on("SIGUSR2", () => {
  appendFileSync(
    out,
    Object.keys(Module._cache)
      .map((path) => `cjs ${path}\n`)
      .join(""),
  );
  process.exit(0);
});
