// A YAML stack with one phone through the real engine, on the phone harness's fake (its phones
// simulated Android devices behind a real adb server of this file's own): the key a secret, the
// ledger a file, the adb server's port as config. up makes the phone and reads its hello; a
// second preview finds no change; the phone ended at the service: preview --refresh exits 7 and
// up makes another; destroy ends it, and neither the key nor an unlock code is in the state.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startFakePhoneHarness, type FakePhoneHarness } from "../support/fake-phone-harness.js";
import { adbServer, type AdbServer } from "../support/phone-adb.js";
import { testStack, type TestStack } from "../support/stack.js";
import { previewRefusesWrongKey } from "../support/wrong-key.js";

describe("a phone through the real engine, on the phone harness's fake", () => {
  let s: TestStack;
  let fake: FakePhoneHarness;
  let adb: AdbServer;

  beforeAll(async () => {
    fake = await startFakePhoneHarness();
    adb = await adbServer();
    s = await testStack(
      "phone",
      {
        p: { type: "agentrun:index:Computer", properties: { provider: "phone-harness", kind: "phone", lifetimeMs: 600_000, labels: { team: "agents" } } },
      },
      { id: "${p.vendorId}", kind: "${p.kind}", network: "${p.network}", hello: "${p.hello}" },
    );
    const ledger = join(mkdtempSync(join(tmpdir(), "phone-stack-")), "phones.json");
    await s.stack.setConfig("agentrun:phone-harness", {
      value: JSON.stringify({ apiKey: fake.key, baseUrl: fake.url, ledger, adbPort: adb.port }),
      secret: true,
    });
  }, 180_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      await adb?.stop();
      await fake?.close();
    }
  }, 300_000);

  test("a wrong key fails the preview before anything is made, naming the setting, the key in no output", async () => {
    await previewRefusesWrongKey(s, { vendor: "phone-harness", field: "apiKey", made: () => fake.running().length });
  }, 300_000);

  test("up makes the phone and reads it back; a second preview finds no change", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.outputs.kind?.value).toBe("phone");
    expect(up.outputs.network?.value).toBe("open");
    expect(up.outputs.hello?.value).toMatchObject({ kind: "android", groups: ["screen", "input.touch", "input.keys", "apps", "apps.ui_tree"] });
    expect(fake.running().map((x) => x.id)).toEqual([up.outputs.id?.value]);
    const again = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
  }, 300_000);

  test("ended at the service: preview --refresh exits 7; up makes another", async () => {
    const id = String((await s.stack.outputs()).id?.value);
    await fetch(`${fake.url}/sessions/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${fake.key}` } });
    for (const end = Date.now() + 5000; fake.running().length > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(String(up.outputs.id?.value)).not.toBe(id);
    expect(fake.running()).toHaveLength(1);
  }, 300_000);

  test("destroy ends the phone, and neither the key nor a code is in the state", async () => {
    await s.stack.destroy({ color: "never" });
    for (const end = Date.now() + 5000; fake.running().length > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 50));
    expect(fake.running()).toEqual([]);
    const state = JSON.stringify(await s.stack.exportStack());
    expect(state).not.toContain(fake.key);
    for (const code of fake.codes) expect(state).not.toContain(code);
  }, 300_000);
});
