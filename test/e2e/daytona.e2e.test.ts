// A YAML stack with one Daytona computer against the fake, through the real engine and the
// plugin, pointed at the fake by agentrun:daytona.apiUrl: up, no change, the sandbox deleted by
// hand (preview --refresh exits 7), up makes it again, destroy leaves nothing.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type Fake, startFake } from "../fakes/daytona.js";
import { testStack, type TestStack } from "../support/stack.js";
import { standinBinary } from "../support/standin.js";
import { toolchain } from "../support/toolchain.js";

const KEY = `fake-key-e2e-${process.pid}`;

describe("a Daytona computer through the real engine, against the fake", () => {
  let fake: Fake;
  let s: TestStack;

  beforeAll(async () => {
    fake = await startFake({ image: toolchain().baseImage, standin: await standinBinary(), apiKey: KEY });
    s = await testStack("daytona", {
      d: { type: "agentrun:index:Computer", properties: { provider: "daytona", image: "default", lifetimeMs: 600_000, network: "none" } },
    }, { id: "${d.id}", name: "${d.name}", network: "${d.network}" });
    await s.stack.setConfig("agentrun:daytona", { value: JSON.stringify({ apiKey: KEY, apiUrl: fake.apiUrl }), secret: true });
  }, 180_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      const left = fake ? await fake.containers() : [];
      await fake?.close();
      expect(left).toEqual([]);
    }
  }, 300_000);

  test("up makes it; a second preview finds no change", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(String(up.outputs.name?.value)).toMatch(/^computer-[0-9a-f]{12}$/);
    expect(up.outputs.network?.value).toBe("none");
    expect(fake.sandboxes.size).toBe(1);
    const again = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(again.exitCode, again.stdout).toBe(0);
  }, 300_000);

  test("deleted by hand: preview --refresh exits 7; up makes it again", async () => {
    const id = String((await s.stack.outputs()).id?.value);
    const deleted = await fetch(`${fake.apiUrl}/sandbox/${id}`, { method: "DELETE", headers: { Authorization: `Bearer ${KEY}` } });
    expect(deleted.status).toBe(200);
    for (let i = 0; i < 100 && fake.sandboxes.has(id); i += 1) await new Promise((r) => setTimeout(r, 100));
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(String(up.outputs.id?.value)).not.toBe(id);
    expect(fake.sandboxes.size).toBe(1);
  }, 300_000);

  test("destroy leaves nothing", async () => {
    await s.stack.destroy({ color: "never" });
    expect(fake.sandboxes.size).toBe(0);
    expect(await fake.containers()).toEqual([]);
    expect(JSON.stringify(await s.stack.exportStack())).not.toContain(KEY);
  }, 300_000);
});
