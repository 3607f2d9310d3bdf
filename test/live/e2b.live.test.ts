// Core against the real E2B, through the conformance CLI with the sweep around it. Skipped in
// words unless AGENTRUN_COMPUTER_LIVE_E2B=1 and COMPUTER_E2B_API_KEY are both set (E2B_API_KEY
// never counts): this machine cannot reach E2B, so it has never run here.
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/toolchain.js";

const run = promisify(execFile);
const live = process.env.AGENTRUN_COMPUTER_LIVE_E2B === "1" && Boolean(process.env.COMPUTER_E2B_API_KEY);
const why = "live E2B: set AGENTRUN_COMPUTER_LIVE_E2B=1 and COMPUTER_E2B_API_KEY to run Core against E2B itself";

describe.skipIf(!live)(live ? "live E2B" : `skipped: ${why}`, () => {
  it("Core passes against E2B, and the sweep after it finds nothing left", async () => {
    const before = path.join(mkdtempSync(path.join(tmpdir(), "e2b-live-")), "before.json");
    const sweep = path.join(ROOT, "dist/src/e2b/conformance/sweep.js");
    await run("node", [sweep, "--before", before]);
    try {
      const conf = await run("node", [path.join(ROOT, "dist/src/conformance/cli.js"), "--provider", "e2b"], { maxBuffer: 16 << 20 }).catch(
        (e: { stdout: string }) => e,
      );
      expect(conf.stdout).toMatch(/^core PASS /m);
    } finally {
      const after = await run("node", [sweep, "--after", before]);
      expect(JSON.parse(after.stdout)).toMatchObject({ swept: 0 });
    }
  }, 3_600_000);
});
