// The Fleet component through the real Pulumi engine on the real Docker engine: a YAML program
// with one Fleet of ten computers (their run folder a Mount, their labels a RunEpoch's), made by
// the plugin's construct. The story: up makes ten children named agents-0 to agents-9, each a
// running computer with the run's labels; a second up changes nothing; one child removed by hand
// and another changed by hand are each shown by name by preview --refresh; up heals them; the
// size cut to 8 removes agents-8 and agents-9 alone; destroy leaves nothing with the run's label.
// Every container any step made is removed by its exact name at the end, pass or fail.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, exists, isRunning } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

function program(base: string, run: string, size: number) {
  return {
    resources: {
      work: { type: "agentrun:index:Mount", properties: { path: join(base, "work"), user: "1000:1000" } },
      claim: { type: "agentrun:index:RunEpoch", properties: { run, epoch: 1 } },
      agents: {
        type: "agentrun:index:Fleet",
        properties: {
          size,
          template: { image: toolchain().baseImage, lifetimeMs: 3_600_000, network: "none", memoryMb: 128, cpus: 0.5, pids: 128 },
          mount: "${work.mount}",
          labels: "${claim.labels}",
        },
      },
    },
    outputs: { names: "${agents.names}", drift: "${agents.drift}" },
  };
}

describe("a Fleet of ten through the real engine", () => {
  let base: string;
  let s: TestStack;
  const run = `e2e-fleet-${randomBytes(4).toString("hex")}`;
  const names = async (): Promise<string[]> => {
    const now = (await s.stack.outputs()).names?.value as string[];
    for (const name of now) s.made.add(name);
    return now;
  };

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-fleet-component-"));
    const p = program(base, run, 10);
    s = await testStack("fleet-component", p.resources, p.outputs);
  }, 120_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      await rm(base, { recursive: true, force: true });
    }
  }, 600_000);

  test("up makes ten children, agents-0 to agents-9, each running with the run's labels and folder", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.result).toBe("succeeded");
    const made = await names();
    expect(made).toHaveLength(10);
    expect(new Set(made).size).toBe(10);
    for (const name of made) {
      expect(await isRunning(name)).toBe(true);
      const labels = JSON.parse((await docker("inspect", "--format", "{{json .Config.Labels}}", name)).stdout);
      expect(labels).toMatchObject({ "agentrun.run": run, "agentrun.epoch": "1" });
    }
    const state = await s.stack.exportStack();
    const children = (state.deployment.resources as Array<{ urn: string; type: string; parent?: string }>).filter((r) => r.type === "agentrun:index:Computer");
    expect(children.map((r) => r.urn.split("::").pop()).sort()).toEqual(Array.from({ length: 10 }, (_, n) => `agents-${n}`).sort());
    expect(children.every((r) => r.parent?.endsWith("agentrun:index:Fleet::agents"))).toBe(true);
    expect((await s.stack.outputs()).drift?.value).toEqual({ count: 0, computers: [], gone: [] });
  }, 600_000);

  test("a second up changes nothing", async () => {
    const up = await s.stack.up({ color: "never" });
    // The stack, the Mount, the RunEpoch, the Fleet and its ten children.
    expect(up.summary.resourceChanges).toEqual({ same: 14 });
  }, 300_000);

  test("one child removed, one changed and one stopped by hand: preview --refresh names each; up heals them", async () => {
    const made = await names();
    await docker("rm", "--force", made[3]!);
    expect((await docker("update", "--memory", "100m", "--memory-swap", "128m", made[5]!)).exitCode).toBe(0);
    expect((await docker("stop", "--time", "1", made[7]!)).exitCode).toBe(0);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toMatch(/\+\s+agentrun:index:Computer\s+agents-3\s+create/);
    expect(preview.stdout).toMatch(/\+-\s+agentrun:index:Computer\s+agents-5\s+replace \[diff: ~memoryMb\]/);
    expect(preview.stdout).toMatch(/\+-\s+agentrun:index:Computer\s+agents-7\s+replace \[diff: ~state\]/);
    expect(preview.stdout).not.toMatch(/agents-[0-2468-9]\s+(create|replace|delete)/);
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toMatchObject({ create: 1, replace: 2 });
    const after = await names();
    expect(await exists(made[5]!)).toBe(false);
    for (const n of [3, 5, 7]) expect(await isRunning(after[n]!)).toBe(true);
    expect(after.filter((_, n) => ![3, 5, 7].includes(n))).toEqual(made.filter((_, n) => ![3, 5, 7].includes(n)));
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
    // The up's drift output names what it found before healing (the stopped child counted, the
    // removed one gone); the up after finds none.
    expect((await s.stack.outputs()).drift?.value).toEqual({ count: 2, computers: ["agents-5", "agents-7"], gone: ["agents-3"] });
    await s.stack.up({ color: "never" });
    expect((await s.stack.outputs()).drift?.value).toEqual({ count: 0, computers: [], gone: [] });
  }, 600_000);

  test("the size cut to 8 removes agents-8 and agents-9 alone", async () => {
    const before = await names();
    const p = program(base, run, 8);
    await s.program(p.resources, p.outputs);
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ delete: 2 });
    expect(up.summary.resourceChanges?.create ?? 0).toBe(0);
    expect(up.summary.resourceChanges?.replace ?? 0).toBe(0);
    const after = await names();
    expect(after).toEqual(before.slice(0, 8));
    for (const name of before.slice(8)) expect(await exists(name)).toBe(false);
  }, 300_000);

  test("destroy leaves nothing with the run's label", async () => {
    await s.stack.destroy({ color: "never" });
    const left = await docker("ps", "-a", "--filter", `label=agentrun.run=${run}`, "--format", "{{.Names}}");
    expect(left.stdout).toBe("");
  }, 300_000);
});

describe("a Fleet the plugin refuses fails preview in words and makes nothing", () => {
  let s: TestStack;
  const run = `e2e-fleet-refuse-${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    s = await testStack("fleet-refuse", {});
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 120_000);

  const refused = async (properties: Record<string, unknown>, words: RegExp) => {
    await s.program({ f: { type: "agentrun:index:Fleet", properties: { labels: { "agentrun.run": run }, ...properties } } });
    const preview = await s.cli("preview");
    expect(preview.exitCode).not.toBe(0);
    expect(preview.stdout + preview.stderr).toMatch(words);
    const left = await docker("ps", "-a", "--filter", `label=agentrun.run=${run}`, "--format", "{{.Names}}");
    expect(left.stdout).toBe("");
  };

  test("a size past the bound", () => refused({ size: 1001, template: { lifetimeMs: 60_000 } }, /size is a whole number from 0 to 1000/));
  // YAML holds the template to its schema type before the plugin sees it.
  test("a template field a Computer does not take", () =>
    refused({ size: 1, template: { lifetimeMs: 60_000, colour: "red" } }, /Property colour does not exist on 'agentrun:index:ComputerTemplate'/));
  test("a negative size", () => refused({ size: -1, template: { lifetimeMs: 60_000 } }, /size is a whole number from 0 to 1000/));
});
