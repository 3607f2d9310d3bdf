// The browser kind against the real Browserbase, through the conformance CLI (one browserbase browser for the
// run, released by its last case and listed gone after). Skipped in words unless
// AGENTRUN_COMPUTER_LIVE_BROWSERBASE=1 and COMPUTER_BROWSERBASE_API_KEY and COMPUTER_BROWSERBASE_PROJECT_ID are set (BROWSERBASE_API_KEY never
// counts): this machine cannot reach Browserbase, so it has never run here.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/toolchain.js";

const run = promisify(execFile);
const live =
  process.env.AGENTRUN_COMPUTER_LIVE_BROWSERBASE === "1" &&
  Boolean(process.env.COMPUTER_BROWSERBASE_API_KEY) &&
  Boolean(process.env.COMPUTER_BROWSERBASE_PROJECT_ID);
const why =
  "live Browserbase: set AGENTRUN_COMPUTER_LIVE_BROWSERBASE=1 and COMPUTER_BROWSERBASE_API_KEY and COMPUTER_BROWSERBASE_PROJECT_ID to run the browser kind against Browserbase itself";

describe.skipIf(!live)(live ? "live Browserbase" : `skipped: ${why}`, () => {
  it("passes the browser kind against Browserbase, leaving nothing", async () => {
    const conf = await run("node", [path.join(ROOT, "dist/src/conformance/cli.js"), "--provider", "browserbase", "--kind", "browser"], {
      maxBuffer: 16 << 20,
    }).catch((e: { stdout: string }) => e);
    expect(conf.stdout).toMatch(/^kind browser PASS$/m);
  }, 1_800_000);
});
