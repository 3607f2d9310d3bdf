// The phone kind against the real phone harness, through the conformance CLI: the live command
//   AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS=1 COMPUTER_PHONE_HARNESS_API_KEY=<key> \
//     npm run conformance -- --provider phone-harness --kind phone
// Skipped in words unless both are set (PHONE_HARNESS_API_KEY never counts): it rents phones at
// 5 cents a minute, and this machine cannot reach the phone harness, so it has never run here.
// The run's ledger is its own file, and every phone it names is ended after, pass or fail.
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createProvider } from "../../src/phone-harness/conformance/module.js";
import { ROOT } from "../support/toolchain.js";

const run = promisify(execFile);
const live = process.env.AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS === "1" && Boolean(process.env.COMPUTER_PHONE_HARNESS_API_KEY);
const why =
  "live phone harness: set AGENTRUN_COMPUTER_LIVE_PHONE_HARNESS=1 and COMPUTER_PHONE_HARNESS_API_KEY to run the phone kind against the phone harness itself";

describe.skipIf(!live)(live ? "live phone harness" : `skipped: ${why}`, () => {
  it("passes the phone kind on Settings, and leaves no phone of its ledger running", async () => {
    const ledger = path.join(mkdtempSync(path.join(tmpdir(), "phone-live-")), "ledger.json");
    const env = { ...process.env, COMPUTER_PHONE_HARNESS_LEDGER: ledger };
    try {
      const conf = await run("node", [path.join(ROOT, "dist/src/conformance/cli.js"), "--provider", "phone-harness", "--kind", "phone"], {
        env,
        maxBuffer: 16 << 20,
      }).catch((e: { stdout: string }) => e);
      expect(conf.stdout).toMatch(/^kind phone PASS/m);
    } finally {
      const provider = createProvider(env);
      const left = await provider.list();
      if (left.ok) for (const phone of left.value) await provider.release(phone.ref, "delete");
      expect(left.ok && left.value).toEqual([]);
    }
  }, 3_600_000);
});
