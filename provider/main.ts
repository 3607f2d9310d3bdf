// The plugin's entry, started by the Pulumi engine through bin/pulumi-resource-agentrun.
// Its first line on stdout is its port, so nothing is printed before serve() binds. It starts on
// the gRPC server and its messages alone (a plugin started just for its schema needs no more);
// the provider (and the library behind it) is loaded at the first call that needs it. The stack's
// agentrun config is read then, from PULUMI_CONFIG (the one place the plugin reads the environment,
// with its test flag AGENTRUN_COMPUTER_TEST beside it, and, only with that flag on,
// AGENTRUN_COMPUTER_TEST_KEYS_UNCHECKED: a test that previews a vendor's example with stand-in keys,
// where no vendor is reached, asks no connection test); a plugin started just for its schema has none.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadStart } from "./bundle-load.js";
import { useStartCache } from "./start-cache.js";
import { holdYoungGeneration } from "./young-generation.js";

const root = new URL("../../", import.meta.url);
const schema = readFileSync(new URL("schema/schema.json", root), "utf8");
const { version } = JSON.parse(readFileSync(new URL("package.json", root), "utf8")) as { version: string };

const args = process.argv.slice(2);
// gRPC, the protos and the provider's bundle compile from the start cache, if the build made one;
// modules loaded after the bundle as Node loads them.
const endStartCache = useStartCache(fileURLToPath(new URL("start-cache.bin", import.meta.url)));
const { serve } = await import("./server.js");
// The young generation is held once the bundle is loaded: a flag set before would make V8 refuse
// the bundle's cached code (recorded without it).
const provider = async () => {
  const start = await loadStart();
  endStartCache();
  holdYoungGeneration();
  return start.provider({ version, schema, args });
};
await serve({ version, schema, args, provider });
