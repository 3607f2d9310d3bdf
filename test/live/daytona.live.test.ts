// Core against the real Daytona, through the conformance CLI with the sweep around it. Skipped in
// words unless AGENTRUN_COMPUTER_LIVE_DAYTONA=1 and COMPUTER_DAYTONA_API_KEY are both set
// (DAYTONA_API_KEY never counts): this machine cannot reach Daytona, so it has never run here.
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/toolchain.js";

const run = promisify(execFile);
const live = process.env.AGENTRUN_COMPUTER_LIVE_DAYTONA === "1" && Boolean(process.env.COMPUTER_DAYTONA_API_KEY);
const why = "live Daytona: set AGENTRUN_COMPUTER_LIVE_DAYTONA=1 and COMPUTER_DAYTONA_API_KEY to run Core against Daytona itself";

describe.skipIf(!live)(live ? "live Daytona" : `skipped: ${why}`, () => {
  it("Core passes against Daytona, and the sweep after it finds nothing left", async () => {
    const before = path.join(mkdtempSync(path.join(tmpdir(), "daytona-live-")), "before.json");
    const sweep = path.join(ROOT, "dist/src/daytona/conformance/sweep.js");
    await run("node", [sweep, "--before", before]);
    try {
      const conf = await run("node", [path.join(ROOT, "dist/src/conformance/cli.js"), "--provider", "daytona"], { maxBuffer: 16 << 20 }).catch(
        (e: { stdout: string }) => e,
      );
      expect(conf.stdout).toMatch(/^core PASS /m);
    } finally {
      const after = await run("node", [sweep, "--after", before]);
      expect(JSON.parse(after.stdout)).toMatchObject({ swept: 0 });
    }
  }, 3_600_000);
});
