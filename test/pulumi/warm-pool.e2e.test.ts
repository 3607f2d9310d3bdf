// The WarmPool through the real Pulumi engine on the real Docker engine. The story: up makes a
// pool of three ready computers; two are claimed by the library for a run (each connected, each
// a different computer); preview --refresh shows the short pool as a change, and refresh records
// one ready and the drift; a plain up refills it to three; destroy releases the ready computers
// and leaves the claimed ones to their run, which releaseOlder then releases. Everything any step
// made is removed at the end by the pool's label (only this test's computers carry it).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DockerProvider } from "../../src/docker/provider.js";
import { releaseOlder } from "../../src/fleet/janitor.js";
import { claim, POOL_LABEL, type Claimed } from "../../src/fleet/pool.js";
import { docker } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

const program = (size: number) => ({
  resources: {
    pool: {
      type: "agentrun:index:WarmPool",
      properties: { size, template: { image: toolchain().baseImage, lifetimeMs: 3_600_000, network: "none", memoryMb: 128, cpus: 0.5 } },
    },
  },
  outputs: { poolId: "${pool.poolId}", ready: "${pool.ready}", drift: "${pool.drift}" },
});

describe("a WarmPool through the real engine", () => {
  let s: TestStack;
  let poolId = "";
  const run = `e2e-pool-${randomBytes(4).toString("hex")}`;
  const provider = new DockerProvider({ daemonPath: toolchain().daemon.amd64 });
  const claimed: Claimed[] = [];
  const members = async () =>
    (await docker("ps", "--filter", `label=${POOL_LABEL}=${poolId}`, "--filter", "name=^/pool-", "--format", "{{.Names}}")).stdout.split("\n").filter(Boolean);

  beforeAll(async () => {
    const p = program(3);
    s = await testStack("warm-pool", p.resources, p.outputs);
  }, 120_000);

  afterAll(async () => {
    try {
      for (const c of claimed) await c.close().catch(() => {});
      await s?.dispose();
    } finally {
      if (poolId) {
        const left = (await docker("ps", "-aq", "--filter", `label=${POOL_LABEL}=${poolId}`)).stdout.split("\n").filter(Boolean);
        const ids = await Promise.all(left.map(async (id) => (await docker("inspect", "--format", "{{.Id}}", id)).stdout));
        if (left.length) await docker("rm", "--force", "--volumes", ...left);
        for (const id of ids) await docker("volume", "rm", "--force", `agentrun-claim-${id}`);
      }
      await provider.engine.close();
    }
  }, 300_000);

  test("up makes a pool of three ready computers", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.result).toBe("succeeded");
    poolId = String(up.outputs.poolId?.value);
    expect(poolId).toMatch(/^pool-[0-9a-f]{16}$/);
    expect(up.outputs.ready?.value).toBe(3);
    expect(await members()).toHaveLength(3);
  }, 300_000);

  test("two claims take two different computers, each connected, and the pool keeps one", async () => {
    for (let i = 0; i < 2; i += 1) {
      const c = await claim({ provider, id: poolId }, { run, epoch: 1 });
      expect(c.ok ? c.value.hello.kind : c.error).toBe("linux");
      if (c.ok) claimed.push(c.value);
    }
    expect(claimed[0]!.ref.id).not.toBe(claimed[1]!.ref.id);
    expect(await members()).toHaveLength(1);
  }, 120_000);

  test("preview --refresh shows the short pool; refresh records one ready and the drift", async () => {
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toMatch(/~\s+agentrun:index:WarmPool\s+pool\s+update/);
    await s.stack.refresh({ color: "never" });
    const state = await s.stack.exportStack();
    const pool = (state.deployment.resources as Array<{ type: string; outputs: Record<string, unknown> }>).find((r) => r.type === "agentrun:index:WarmPool")!;
    expect(pool.outputs.ready).toBe(1);
    expect(pool.outputs.drift).toEqual(["short: 1 of 3 computers ready (claimed or gone); the next up refills it"]);
  }, 300_000);

  test("a plain up refills the pool to three, and the claimed computers stay their run's", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(up.outputs.ready?.value).toBe(3);
    expect(await members()).toHaveLength(3);
    for (const c of claimed) expect((await docker("inspect", "--format", "{{.State.Running}}", c.ref.name)).stdout).toBe("true");
  }, 300_000);

  test("destroy releases the ready computers; the run's claimed ones go with releaseOlder", async () => {
    await s.stack.destroy({ color: "never" });
    expect(await members()).toEqual([]);
    const older = await releaseOlder(provider, run, 2);
    expect(older.ok && [...older.value.released].sort()).toEqual(claimed.map((c) => c.ref.name).sort());
    const left = await docker("ps", "-aq", "--filter", `label=${POOL_LABEL}=${poolId}`);
    expect(left.stdout).toBe("");
  }, 300_000);
});

describe("a WarmPool the plugin refuses fails preview in words and makes nothing", () => {
  let s: TestStack;

  beforeAll(async () => {
    s = await testStack("warm-pool-refuse", {});
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 120_000);

  const refused = async (properties: Record<string, unknown>, words: RegExp) => {
    await s.program({ pool: { type: "agentrun:index:WarmPool", properties } });
    const preview = await s.cli("preview");
    expect(preview.exitCode).not.toBe(0);
    expect(preview.stdout + preview.stderr).toMatch(words);
  };

  test("an allowlist template", () =>
    refused({ size: 1, template: { lifetimeMs: 60_000, network: "allow", allow: ["pypi.org"] } }, /a warm pool takes network none or open/));
  test("a template with a run's label", () =>
    refused({ size: 1, template: { lifetimeMs: 60_000, labels: { "agentrun.run": "r1" } } }, /template.labels has agentrun.run, which a claim gives/));
  test("a size past the bound", () => refused({ size: 101, template: { lifetimeMs: 60_000 } }, /size is a whole number from 0 to 100/));
});
