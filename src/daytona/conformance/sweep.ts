#!/usr/bin/env node
// The sweep around a live Daytona run (src/kits/conformance/sweep.ts, the shape E2B's shares): --before
// <file> records every sandbox carrying agentrun.computer=1; --after <file> deletes every one not
// in it and prints {"swept":n,"notFound":m,"stillThere":[ids]}. It reads COMPUTER_DAYTONA_API_KEY
// and COMPUTER_DAYTONA_API_URL through the conformance module.
import { pathToFileURL } from "node:url";
import { createProvider, settingsFromEnv } from "./module.js";
import { runSweep, sweepMain } from "../../kits/conformance/sweep.js";

const cli = (env: Record<string, string | undefined>) => ({
  name: "daytona-sweep",
  vendor: "daytona",
  build: () => createProvider(settingsFromEnv(env)),
  goneKey: "notFound",
});

export function main(argv: string[], env: Record<string, string | undefined>) {
  return sweepMain(argv, cli(env));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await runSweep(cli(process.env));
