// Two runners claim one run through two stacks, as a restarted agent run would. The later claim
// (epoch 2) releases the earlier claim's computer at create; the earlier stack's refresh then
// shows its claim fenced, and its next up is refused in words, releasing nothing of the later
// claim. Every container made is removed by its exact name, pass or fail.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { exists, isRunning } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

const runner = (run: string, epoch: number) => ({
  claim: { type: "agentrun:index:RunEpoch", properties: { run, epoch } },
  c: {
    type: "agentrun:index:Computer",
    properties: { image: toolchain().baseImage, lifetimeMs: 600_000, memoryMb: 256, labels: "${claim.labels}" },
  },
});

describe("run claims across two stacks", () => {
  const run = `e2e-claim-${randomBytes(4).toString("hex")}`;
  let earlier: TestStack;
  let later: TestStack;
  const nameIn = async (s: TestStack) => {
    const name = String((await s.stack.outputs()).name?.value);
    s.made.add(name);
    return name;
  };

  beforeAll(async () => {
    earlier = await testStack("claim-earlier", runner(run, 1), { name: "${c.name}", released: "${claim.released}" });
    later = await testStack("claim-later", runner(run, 2), { name: "${c.name}", released: "${claim.released}" });
  }, 120_000);

  afterAll(async () => {
    try {
      await earlier?.dispose();
    } finally {
      await later?.dispose();
    }
  }, 300_000);

  test("the later claim releases the earlier claim's computer before it makes its own", async () => {
    await earlier.stack.up({ color: "never" });
    const old = await nameIn(earlier);
    expect(await isRunning(old)).toBe(true);
    const up = await later.stack.up({ color: "never" });
    expect(up.outputs.released?.value).toEqual([old]);
    expect(await exists(old)).toBe(false);
    expect(await isRunning(await nameIn(later))).toBe(true);
  }, 300_000);

  test("the earlier stack's preview --refresh shows its claim fenced, exit 7", async () => {
    const preview = await earlier.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toContain(`fenced: a later claim holds run ${run}`);
  }, 120_000);

  test("the earlier stack's next up is refused as fenced, in words, and the later claim's computer is untouched", async () => {
    const up = await earlier.cli("up", "--yes", "--refresh", "--skip-preview");
    expect(up.exitCode).not.toBe(0);
    expect(up.stdout + up.stderr).toMatch(
      new RegExp(`fenced: run "${run}" has computer-[0-9a-f]{12} at epoch 2, above this claim's epoch 1; a later claim holds the run, so nothing was released`),
    );
    expect(await isRunning(await nameIn(later))).toBe(true);
  }, 300_000);
});
