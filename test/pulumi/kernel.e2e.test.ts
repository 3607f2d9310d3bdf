// A YAML stack with one browser on Kernel against its fake, through the real engine and the
// plugin, its key as secret stack config: up makes a browser, no change on a second preview;
// the browser deleted at Kernel is gone on refresh; destroy deletes it.
import { describe, expect, test } from "vitest";
import { useKernelStack } from "../support/browser-helpers.js";
import { previewRefusesWrongKey } from "../support/wrong-key.js";

const KEYS = { apiKey: `kernel_e2e_${process.pid}_0123456789` };

describe("a Kernel browser through the real engine, against the fake", () => {
  const held = useKernelStack(
    "kernel",
    KEYS,
    { k: { type: "agentrun:index:Computer", properties: { provider: "kernel", kind: "browser", lifetimeMs: 600_000, labels: { team: "agents" } } } },
    { vendorId: "${k.vendorId}", network: "${k.network}", image: "${k.image}" },
  );

  test("a wrong key fails the preview before anything is made, naming the setting, the key in no output", async () => {
    await previewRefusesWrongKey(held.s, { vendor: "kernel", field: "apiKey", made: () => held.fake.live().length });
  }, 300_000);

  test("up makes a browser; a second preview finds no change; the stored state holds no key", async () => {
    const up = await held.s.stack.up({ color: "never" });
    expect(up.outputs).toMatchObject({ network: { value: "open" }, image: { value: "chromium" } });
    expect(held.fake.live()).toHaveLength(1);
    const again = await held.s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(again.exitCode, again.stdout).toBe(0);
    const stored = await held.s.cli("stack", "export");
    expect(stored.stdout).not.toContain(KEYS.apiKey);
    expect(JSON.stringify(await held.s.stack.exportStack())).not.toMatch(/signingKey|\/connect\?/);
  }, 300_000);

  test("deleted at Kernel: refresh finds it gone", async () => {
    const id = String((await held.s.stack.outputs()).vendorId?.value);
    const deleted = await fetch(`${held.fake.apiUrl}/browsers/${id}`, { method: "DELETE", headers: { Authorization: `Bearer ${KEYS.apiKey}` } });
    expect(deleted.status).toBe(204);
    const preview = await held.s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
  }, 300_000);

  test("destroy leaves nothing", async () => {
    await held.s.stack.destroy({ color: "never", refresh: true });
    expect(held.fake.live()).toEqual([]);
  }, 300_000);
});
