// Run by the build (npm run build, npm run setup) after the bundle (bundle.ts): records the start
// cache (start-cache.ts) of the modules the plugin loads before its first answer, beside the
// compiled plugin, for the Node that built it: the server's (gRPC, the protos) and the provider's
// bundle, with the code of a preview's first call compiled in it (the provider made, a Computer
// checked as bench/plugin-first-call.mjs checks one), which V8 otherwise compiles function by
// function at that call. The check reads the Docker host the build's environment names, as a
// preview would; with no engine there it is refused, and what ran is recorded all the same.
import { fileURLToPath } from "node:url";
import { loadStart } from "./bundle-load.js";
import { recordStartCache } from "./start-cache.js";

const URN = "urn:pulumi:build::build::agentrun:index:Computer::c";

await recordStartCache(fileURLToPath(new URL("start-cache.bin", import.meta.url)), async () => {
  await import("./server.js");
  const made = await (await loadStart()).provider({ version: "0.0.0", schema: "{}", args: [] });
  try {
    await made.check?.(URN, {}, { network: "none", lifetimeMs: 600_000 });
  } catch {
    // A refusal or a failed read still compiled the code on its way.
  } finally {
    await made.shutdown?.();
  }
});
