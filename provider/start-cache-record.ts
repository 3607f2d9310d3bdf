// Run by the build (npm run build, npm run setup) after the bundle (bundle.ts): records the start
// cache (start-cache.ts) of the modules the plugin loads before its first answer, beside the
// compiled plugin, for the Node that built it: the server's (gRPC, the protos) and the provider's
// bundle, which the first call that needs the provider loads.
import { fileURLToPath } from "node:url";
import { loadStart } from "./bundle-load.js";
import { recordStartCache } from "./start-cache.js";

await recordStartCache(fileURLToPath(new URL("start-cache.bin", import.meta.url)), async () => {
  await import("./server.js");
  await loadStart();
});
