// Run by the build (npm run build, npm run setup): records the start cache (start-cache.ts) of the
// modules the plugin's server loads, beside the compiled plugin, for the Node that built it.
import { fileURLToPath } from "node:url";
import { recordStartCache } from "./start-cache.js";

await recordStartCache(fileURLToPath(new URL("start-cache.bin", import.meta.url)), () => import("./server.js"));
