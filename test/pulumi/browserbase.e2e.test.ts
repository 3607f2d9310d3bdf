// A YAML stack with one browser (kind browser, provider browserbase) against the fake, through the
// real engine and the plugin, its key and project as secret stack config: up makes a session, no
// change on a second preview, the CDP URL in no state; the session ended at the fake is gone on
// refresh and up makes it again; destroy releases it.
import { describe, expect, test } from "vitest";
import { useBrowserbaseStack } from "../support/browser-helpers.js";
import { previewRefusesWrongKey } from "../support/wrong-key.js";

const KEYS = { apiKey: `bb_e2e_${process.pid}_0123456789`, projectId: `proj-e2e-${process.pid}` };

describe("a Browserbase browser through the real engine, against the fake", () => {
  const held = useBrowserbaseStack(
    "browserbase",
    KEYS,
    { b: { type: "agentrun:index:Computer", properties: { provider: "browserbase", kind: "browser", lifetimeMs: 600_000, labels: { team: "agents" } } } },
    { id: "${b.id}", vendorId: "${b.vendorId}", network: "${b.network}", image: "${b.image}", kind: "${b.kind}" },
  );

  test("a wrong key fails the preview before anything is made, naming the setting, the key in no output", async () => {
    await previewRefusesWrongKey(held.s, { vendor: "browserbase", field: "apiKey", made: () => held.fake.live().length });
  }, 300_000);

  test("up makes a session; a second preview finds no change; no state holds the CDP URL or a key", async () => {
    const up = await held.s.stack.up({ color: "never" });
    expect(up.outputs).toMatchObject({ network: { value: "open" }, image: { value: "chromium" }, kind: { value: "browser" } });
    expect(held.fake.live()).toHaveLength(1);
    expect(held.fake.live()[0]!.keepAlive).toBe(true);
    const again = await held.s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(again.exitCode, again.stdout).toBe(0);
    // The state as stored (no --show-secrets): the key a secret, the CDP URL nowhere, not even decrypted.
    const stored = await held.s.cli("stack", "export");
    expect(stored.exitCode).toBe(0);
    expect(stored.stdout).not.toContain(KEYS.apiKey);
    expect(JSON.stringify(await held.s.stack.exportStack())).not.toMatch(/signingKey|\/connect\?/);
  }, 300_000);

  test("ended at the vendor: refresh finds it gone, and up makes it again", async () => {
    const id = String((await held.s.stack.outputs()).vendorId?.value);
    const ended = await fetch(`${held.fake.apiUrl}/v1/sessions/${id}`, {
      method: "POST",
      headers: { "X-BB-API-Key": KEYS.apiKey, "content-type": "application/json" },
      body: JSON.stringify({ status: "REQUEST_RELEASE" }),
    });
    expect(ended.status).toBe(200);
    const preview = await held.s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    const up = await held.s.stack.up({ color: "never", refresh: true });
    expect(String(up.outputs.vendorId?.value)).not.toBe(id);
    expect(held.fake.live()).toHaveLength(1);
  }, 300_000);

  test("destroy releases it", async () => {
    await held.s.stack.destroy({ color: "never" });
    expect(held.fake.live()).toEqual([]);
  }, 300_000);
});
