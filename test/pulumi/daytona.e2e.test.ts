// A YAML stack with one Daytona computer against the fake, through the real engine and the
// plugin, pointed at the fake by agentrun:daytona.apiUrl: up, no change, the sandbox deleted by
// hand (preview --refresh exits 7), up makes it again, destroy leaves nothing.
import { describe, expect, test } from "vitest";
import { useDaytonaStack } from "../support/daytona-helpers.js";
import { previewRefusesWrongKey } from "../support/wrong-key.js";

const KEY = `fake-key-e2e-${process.pid}`;

describe("a Daytona computer through the real engine, against the fake", () => {
  const held = useDaytonaStack(
    "daytona",
    KEY,
    {
      d: { type: "agentrun:index:Computer", properties: { provider: "daytona", image: "default", lifetimeMs: 600_000, network: "none" } },
    },
    { id: "${d.id}", name: "${d.name}", network: "${d.network}" },
  );

  test("a wrong key fails the preview before anything is made, naming the setting, the key in no output", async () => {
    await previewRefusesWrongKey(held.s, { vendor: "daytona", field: "apiKey", made: () => held.fake.sandboxes.size });
  }, 300_000);

  test("up makes it; a second preview finds no change", async () => {
    const up = await held.s.stack.up({ color: "never" });
    expect(String(up.outputs.name?.value)).toMatch(/^computer-[0-9a-f]{12}$/);
    expect(up.outputs.network?.value).toBe("none");
    expect(held.fake.sandboxes.size).toBe(1);
    const again = await held.s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(again.exitCode, again.stdout).toBe(0);
  }, 300_000);

  test("deleted by hand: preview --refresh exits 7; up makes it again", async () => {
    const id = String((await held.s.stack.outputs()).id?.value);
    const deleted = await fetch(`${held.fake.apiUrl}/sandbox/${id}`, { method: "DELETE", headers: { Authorization: `Bearer ${KEY}` } });
    expect(deleted.status).toBe(200);
    for (let i = 0; i < 100 && held.fake.sandboxes.has(id); i += 1) await new Promise((r) => setTimeout(r, 100));
    const preview = await held.s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    const up = await held.s.stack.up({ color: "never", refresh: true });
    expect(String(up.outputs.id?.value)).not.toBe(id);
    expect(held.fake.sandboxes.size).toBe(1);
  }, 300_000);

  test("destroy leaves nothing", async () => {
    await held.s.stack.destroy({ color: "never" });
    expect(held.fake.sandboxes.size).toBe(0);
    expect(await held.fake.containers()).toEqual([]);
    expect(JSON.stringify(await held.s.stack.exportStack())).not.toContain(KEY);
  }, 300_000);
});
