// Run by the build (npm run build, npm run setup), after the bundle (bundle.ts): records the start
// cache (start-cache.ts) of what the plugin's start loads, as main.ts loads it: the server (gRPC's
// and the protos' CommonJS modules), then, with the young generation held, the provider's bundle,
// run as far as a preview's first call loads it (start.ts's warm), beside the compiled plugin, for
// the Node that built it.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadStart } from "./bundle-load.js";
import { recordStartCache } from "./start-cache.js";
import { holdYoungGeneration } from "./young-generation.js";

const schema = readFileSync(new URL("../../schema/schema.json", import.meta.url), "utf8");
await recordStartCache(
  fileURLToPath(new URL("start-cache.bin", import.meta.url)),
  () => import("./server.js"),
  async () => {
    holdYoungGeneration();
    await (await loadStart()).warm({ version: "0.0.0", schema });
  },
);
