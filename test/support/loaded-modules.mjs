// Preloaded into a plugin by test/pulumi/plugin-first-call.test.ts (NODE_OPTIONS=--import, which is
// no V8 flag): writes every ES module the plugin loads as it loads it, and on SIGUSR2 every CommonJS
// module it has loaded (require's cache), one `esm <url>` or `cjs <path>` a line, to the file
// AGENTRUN_LOADED_MODULES names; then the plugin exits. Each module compiled with V8's cached code
// (the start cache, provider/start-cache.ts) is written as `cached <path>`, or `refused <path>`
// when V8 refused that code (a V8 flag set since it was made).
import { appendFileSync } from "node:fs";
import Module, { register } from "node:module";
import vm from "node:vm";

const out = process.env.AGENTRUN_LOADED_MODULES;
const hooks = `import { appendFileSync } from "node:fs";
let out;
export function initialize(data) { out = data.out; }
export async function load(url, context, next) { appendFileSync(out, "esm " + url + "\\n"); return next(url, context); }`;
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { out } });

vm.Script = class extends vm.Script {
  constructor(code, options) {
    super(code, options);
    if (options?.cachedData) appendFileSync(out, `${this.cachedDataRejected ? "refused" : "cached"} ${options.filename}\n`);
  }
};

process.on("SIGUSR2", () => {
  appendFileSync(
    out,
    Object.keys(Module._cache)
      .map((path) => `cjs ${path}\n`)
      .join(""),
  );
  process.exit(0);
});
