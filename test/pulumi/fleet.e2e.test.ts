// A fleet is a stack: three computers, their run folder (a Mount) and their run claim (a
// RunEpoch), through the real Pulumi engine on the real Docker engine. The story: up; a second
// up with no changes; a computer removed by hand, shown by preview --refresh and made again; one
// changed by hand (docker update --memory), shown as a replace naming the memory and healed; one
// renamed by hand (docker rename), shown as drift and replaced, the renamed one removed; the epoch
// raised, the older computers released; destroy, with one renamed just before, leaves nothing
// carrying the stack's labels, whatever its name. Every container any step made is removed by its
// exact name at the end, pass or fail.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, exists, isRunning } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

const NAMES = ["c0", "c1", "c2"];

function fleet(base: string, run: string, epoch: number, extra: Record<string, unknown> = {}) {
  const image = toolchain().baseImage;
  const resources: Record<string, unknown> = {
    work: { type: "agentrun:index:Mount", properties: { path: join(base, "work"), user: "1000:1000" } },
    claim: { type: "agentrun:index:RunEpoch", properties: { run, epoch } },
  };
  for (const n of NAMES) {
    resources[n] = {
      type: "agentrun:index:Computer",
      properties: { image, lifetimeMs: 3_600_000, network: "none", memoryMb: 256, cpus: 1, mount: "${work.mount}", labels: "${claim.labels}", ...extra },
    };
  }
  const outputs = Object.fromEntries(NAMES.map((n) => [n, `\${${n}.name}`]));
  return { resources, outputs };
}

describe("a fleet of three computers through the real engine", () => {
  let base: string;
  let s: TestStack;
  const run = `e2e-${randomBytes(4).toString("hex")}`;
  const names = async (): Promise<Record<string, string>> => {
    const outs = await s.stack.outputs();
    const now = Object.fromEntries(NAMES.map((n) => [n, String(outs[n]?.value)]));
    for (const name of Object.values(now)) s.made.add(name);
    return now;
  };

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-fleet-"));
    const f = fleet(base, run, 1);
    s = await testStack("fleet", f.resources, f.outputs);
  }, 120_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  }, 300_000);

  test("up makes three running computers, each with the run folder and the claim's labels", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.result).toBe("succeeded");
    for (const name of Object.values(await names())) {
      expect(await isRunning(name)).toBe(true);
      const labels = JSON.parse((await docker("inspect", "--format", "{{json .Config.Labels}}", name)).stdout);
      expect(labels).toMatchObject({ "agentrun.run": run, "agentrun.epoch": "1" });
    }
  }, 300_000);

  test("a second up reports no changes", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toEqual({ same: 6 });
  }, 120_000);

  test("a container removed by hand: preview --refresh exits 7 and shows it created again; refresh drops it; up makes it", async () => {
    const { c1 } = await names();
    await docker("rm", "--force", c1!);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toMatch(/\+\s+agentrun:index:Computer\s+c1\s+create/);
    const refresh = await s.stack.refresh({ color: "never" });
    expect(refresh.summary.resourceChanges).toMatchObject({ delete: 1 });
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ create: 1 });
    const after = await names();
    expect(after.c1).not.toBe(c1);
    expect(await isRunning(after.c1!)).toBe(true);
  }, 300_000);

  test("a container changed by hand (docker update --memory): preview --refresh shows a replace naming the memory; up heals it", async () => {
    const { c2 } = await names();
    expect((await docker("update", "--memory", "200m", "--memory-swap", "256m", c2!)).exitCode).toBe(0);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toMatch(/\+-\s*agentrun:index:Computer: \(replace\)/);
    expect(preview.stdout).toMatch(/memoryMb\s*:\s*200 => 256/);
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
    const after = await names();
    expect(await exists(c2!)).toBe(false);
    expect(await isRunning(after.c2!)).toBe(true);
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
  }, 300_000);

  test("a container renamed by hand (docker rename): preview --refresh shows the rename as drift and a replace; up removes the renamed one", async () => {
    const { c0 } = await names();
    const renamed = `renamed-by-hand-${randomBytes(4).toString("hex")}`;
    s.made.add(renamed);
    expect((await docker("rename", c0!, renamed)).exitCode).toBe(0);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toContain(`renamed by hand to ${renamed} (it was made as ${c0})`);
    expect(preview.stdout).toMatch(/\+-\s*agentrun:index:Computer: \(replace\)/);
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect(await exists(renamed)).toBe(false);
    const after = await names();
    expect(after.c0).not.toBe(c0);
    expect(await isRunning(after.c0!)).toBe(true);
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
  }, 300_000);

  test("the epoch raised: the older computers are released and new ones made", async () => {
    const before = await names();
    const f = fleet(base, run, 2);
    await s.program(f.resources, f.outputs);
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.result).toBe("succeeded");
    const after = await names();
    for (const n of NAMES) {
      expect(await exists(before[n]!)).toBe(false);
      expect(await isRunning(after[n]!)).toBe(true);
      const labels = JSON.parse((await docker("inspect", "--format", "{{json .Config.Labels}}", after[n]!)).stdout);
      expect(labels["agentrun.epoch"]).toBe("2");
    }
  }, 300_000);

  test("destroy, with a computer renamed by hand just before, leaves nothing carrying the stack's labels, whatever its name", async () => {
    const { c1 } = await names();
    const renamed = `renamed-before-destroy-${randomBytes(4).toString("hex")}`;
    s.made.add(renamed);
    expect((await docker("rename", c1!, renamed)).exitCode).toBe(0);
    await s.stack.destroy({ color: "never" });
    const left = await docker("ps", "-a", "--filter", `label=agentrun.run=${run}`, "--format", "{{.Names}}");
    expect(left.stdout).toBe("");
  }, 300_000);
});

describe("a spec the provider refuses fails preview's check in words and makes nothing", () => {
  let base: string;
  let s: TestStack;
  const run = `e2e-refuse-${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-refuse-"));
    s = await testStack("refuse-computer", {});
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
    await rm(base, { recursive: true, force: true });
  }, 120_000);

  const refused = async (properties: Record<string, unknown>, words: RegExp) => {
    const image = toolchain().baseImage;
    await s.program({ c: { type: "agentrun:index:Computer", properties: { image, lifetimeMs: 60_000, labels: { "agentrun.run": run }, ...properties } } });
    const preview = await s.cli("preview");
    expect(preview.exitCode).not.toBe(0);
    expect(preview.stdout + preview.stderr).toMatch(words);
    const left = await docker("ps", "-a", "--filter", `label=agentrun.run=${run}`, "--format", "{{.Names}}");
    expect(left.stdout).toBe("");
  };

  test("an allowlist entry with a port", () =>
    refused({ network: "allow", allow: ["pypi.org:443"] }, /network.allow: "pypi.org:443" has a port: list the host alone/));
  test("a lifetime past the cap", () => refused({ lifetimeMs: 31 * 86_400_000 }, /lifetimeMs is past this provider's cap of 2592000000 ms \(30 days\)/));
  test("a NUL in a label", () => refused({ labels: { "agentrun.run": run, team: "a\u0000b" } }, /the label team is a string with no NUL/));
});
