// The browser kind against the real Kernel, through the conformance CLI (one kernel browser for the
// run, released by its last case and listed gone after). Skipped in words unless
// AGENTRUN_COMPUTER_LIVE_KERNEL=1 and COMPUTER_KERNEL_API_KEY are set (KERNEL_API_KEY never
// counts): this machine cannot reach Kernel, so it has never run here.
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/toolchain.js";

const run = promisify(execFile);
const live = process.env.AGENTRUN_COMPUTER_LIVE_KERNEL === "1" && Boolean(process.env.COMPUTER_KERNEL_API_KEY);
const why = "live Kernel: set AGENTRUN_COMPUTER_LIVE_KERNEL=1 and COMPUTER_KERNEL_API_KEY to run the browser kind against Kernel itself";

describe.skipIf(!live)(live ? "live Kernel" : `skipped: ${why}`, () => {
  it("passes the browser kind against Kernel, leaving nothing", async () => {
    const conf = await run("node", [path.join(ROOT, "dist/src/conformance/cli.js"), "--provider", "kernel", "--kind", "browser"], {
      maxBuffer: 16 << 20,
    }).catch((e: { stdout: string }) => e);
    expect(conf.stdout).toMatch(/^kind browser PASS$/m);
  }, 1_800_000);
});
