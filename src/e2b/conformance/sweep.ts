#!/usr/bin/env node
// The sweep around a live E2B run (src/kits/conformance/sweep.ts): --before <file> records every sandbox
// E2B lists with agentrun.computer=1; --after <file> kills every one not in it, reads each back
// until getInfo no longer finds it and the listing no longer shows it, up to 60 s each (once when
// its release failed), and prints {"swept":n,"gone":m,"stillThere":[ids]}. It reads
// COMPUTER_E2B_API_KEY and COMPUTER_E2B_DOMAIN through the conformance module's settingsFromEnv,
// and needs no live switch.
import { pathToFileURL } from "node:url";
import { create } from "../create.js";
import type { E2BSandboxClass } from "../sdk.js";
import { settingsFromEnv } from "./module.js";
import { runSweep, type SweepCli, sweepMain } from "../../kits/conformance/sweep.js";

/** The command's shape; sdk, a fake of the slice (tests), else the host's e2b package. */
export function e2bSweep(env: Record<string, string | undefined>, sdk?: E2BSandboxClass): SweepCli {
  return {
    name: "e2b-sweep",
    vendor: "e2b",
    build: () => {
      const { apiKey, domain } = settingsFromEnv(env);
      return create({ apiKey, ...(domain ? { domain } : {}), ...(sdk ? { sdk } : {}) });
    },
  };
}

export function main(argv: string[], env: Record<string, string | undefined>, sdk?: E2BSandboxClass) {
  return sweepMain(argv, e2bSweep(env, sdk));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await runSweep(e2bSweep(process.env));
