// A YAML stack with one E2B computer through the real engine, the plugin told to use the
// Docker-backed fake of the SDK slice by its one test-only setting (agentrun:e2b testSdk, taken
// only with the plugin's test flag), the key a secret: up, no change, the sandbox killed by hand
// (preview --refresh exits 7), up makes it again, destroy leaves nothing and the key is nowhere in
// the state. Every container carries this file's own run label, and goes by it, pass or fail.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { E2BDockerFake } from "../support/fake-e2b-docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { previewRefusesWrongKey } from "../support/wrong-key.js";
import { standinBinary } from "../support/standin.js";
import { ROOT } from "../support/toolchain.js";

const run = `e2e-${randomBytes(6).toString("hex")}`;
const KEY = `e2b_${randomBytes(12).toString("hex")}`;
// The plugin inherits these from this process through the engine.
process.env.AGENTRUN_COMPUTER_TEST = "1";
process.env.AGENTRUN_E2B_FAKE_RUN = run;
process.env.AGENTRUN_E2B_FAKE_KEY = KEY;
const fake = new E2BDockerFake({ run, apiKey: KEY });
const opts = { apiKey: KEY, domain: "e2b.app", apiUrl: "https://api.e2b.app", debug: false as const };

describe("an E2B computer through the real engine, on the Docker-backed fake", () => {
  let s: TestStack;

  beforeAll(async () => {
    await standinBinary();
    s = await testStack(
      "e2b",
      {
        e: { type: "agentrun:index:Computer", properties: { provider: "e2b", image: "base", kind: "linux", lifetimeMs: 600_000, network: "none" } },
      },
      { id: "${e.vendorId}", name: "${e.name}", network: "${e.network}" },
    );
    await s.stack.setConfig("agentrun:e2b", { value: JSON.stringify({ apiKey: KEY, testSdk: `${ROOT}/dist/test/support/fake-e2b-docker.js` }), secret: true });
  }, 180_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      const left = await fake.remove();
      expect(left).toEqual([]);
    }
  }, 300_000);

  test("a wrong key fails the preview before anything is made, naming the setting, the key in no output", async () => {
    await previewRefusesWrongKey(s, { vendor: "e2b", field: "apiKey", made: async () => (await fake.containers()).length });
  }, 300_000);

  test("up makes it; a second preview finds no change", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(String(up.outputs.name?.value)).toMatch(/^computer-[0-9a-f]{12}$/);
    expect(up.outputs.network?.value).toBe("none");
    expect((await fake.containers()).length).toBe(1);
    const again = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(again.exitCode, again.stdout).toBe(0);
  }, 300_000);

  test("killed by hand: preview --refresh exits 7; up makes it again", async () => {
    const id = String((await s.stack.outputs()).id?.value);
    expect(await fake.kill(id, opts)).toBe(true);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(String(up.outputs.id?.value)).not.toBe(id);
    expect((await fake.containers()).length).toBe(1);
  }, 300_000);

  test("destroy leaves nothing, and the key is not in the state", async () => {
    await s.stack.destroy({ color: "never" });
    expect(await fake.containers()).toEqual([]);
    expect(JSON.stringify(await s.stack.exportStack())).not.toContain(KEY);
  }, 300_000);
});
