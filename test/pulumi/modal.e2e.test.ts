// Two Modal computers in a YAML stack through the real engine, the plugin told to use the
// Docker-backed fake by its one test-only setting (agentrun:modal testSdk, taken only with the
// plugin's test flag). up, a preview with no change, one sandbox terminated by hand (a refreshed
// preview then exits 7), refresh, one whose tags were changed by hand (drift: exit 7), destroy;
// the token never in clear in the state. Every sandbox
// carries this file's own run label, and goes by it, pass or fail.
import { randomBytes } from "node:crypto";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { ModalDockerFake } from "../support/fake-modal-docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { previewRefusesWrongKey } from "../support/wrong-key.js";
import { ROOT, toolchain } from "../support/toolchain.js";

const run = `e2e-${randomBytes(6).toString("hex")}`;
const tokenSecret = `as-${randomBytes(12).toString("hex")}`;
// The plugin inherits these from this process through the engine.
process.env.AGENTRUN_COMPUTER_TEST = "1";
process.env.AGENTRUN_MODAL_FAKE_RUN = run;
process.env.AGENTRUN_MODAL_FAKE_TOKEN_SECRET = tokenSecret;
const fake = new ModalDockerFake({ run });
const computer = {
  type: "agentrun:index:Computer",
  properties: { provider: "modal", image: toolchain().baseImage, lifetimeMs: 600_000, network: "none", labels: { team: "e2e" } },
};

describe("two Modal computers through the real engine, on the Docker-backed fake", () => {
  let s: TestStack;

  beforeAll(async () => {
    s = await testStack("modal", { a: computer, b: structuredClone(computer) }, { a: "${a.name}", b: "${b.name}", aId: "${a.vendorId}", bId: "${b.vendorId}" });
    await s.cli("config", "set", "--path", "agentrun:modal.app", "agentrun-e2e");
    await s.cli("config", "set", "--path", "agentrun:modal.testSdk", `${ROOT}/dist/test/support/fake-modal-docker.js`);
    await s.cli("config", "set", "--path", "--secret", "agentrun:modal.tokenId", `ak-${randomBytes(12).toString("hex")}`);
    await s.cli("config", "set", "--path", "--secret", "agentrun:modal.tokenSecret", tokenSecret);
  }, 120_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      await fake.remove();
    }
  }, 300_000);

  test("a wrong key fails the preview before anything is made, naming the setting, the key in no output", async () => {
    await previewRefusesWrongKey(s, { vendor: "modal", field: "tokenSecret", made: async () => (await fake.running()).length });
  }, 300_000);

  test("up makes both, and a preview after it has no change", async () => {
    const up = await s.cli("up", "--yes");
    expect(up.stderr).toBe("");
    expect(up.exitCode, up.stdout.slice(-3000)).toBe(0);
    expect((await fake.running()).length).toBe(2);
    expect((await s.cli("preview", "--expect-no-changes")).exitCode).toBe(0);
    const leaks = await execa("grep", ["-rl", "--", tokenSecret, `${s.dir}/state`], { reject: false });
    expect(leaks.exitCode).toBe(1); // grep's "no line matched"
  }, 300_000);

  test("a sandbox terminated by hand is gone to a refreshed preview (exit 7), and refresh drops it", async () => {
    const outputs = await s.stack.outputs();
    const id = String(outputs.aId?.value);
    await (await fake.sandboxes.fromId(id)).terminate();
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    const refreshed = await s.cli("refresh", "--yes");
    expect(refreshed.exitCode).toBe(0);
    const resources = (await s.stack.exportStack()).deployment.resources.map((r: { urn: string }) => r.urn.split("::").pop());
    expect(resources).not.toContain("a");
    expect(resources).toContain("b");
  }, 300_000);

  test("a sandbox whose tags were changed by hand shows as drift to a refreshed preview (exit 7)", async () => {
    const id = String((await s.stack.outputs()).bId?.value);
    const sandbox = (await fake.sandboxes.fromId(id)) as unknown as {
      getTags(): Promise<Record<string, string>>;
      setTags(t: Record<string, string>): Promise<void>;
    };
    await sandbox.setTags({ ...(await sandbox.getTags()), team: "someone-else" });
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode, preview.stdout.slice(-2000)).toBe(7);
    expect(preview.stdout).toMatch(/team.*someone-else|someone-else/);
  }, 300_000);

  test("destroy releases what is left, and nothing runs after", async () => {
    const destroyed = await s.cli("destroy", "--yes");
    expect(destroyed.exitCode, destroyed.stdout.slice(-3000)).toBe(0);
    expect(await fake.running()).toEqual([]);
  }, 300_000);
});
