// The first stack a user writes by hand, through the real engine: a Mount and a Computer on it
// (`mount: ${work.mount}`, literal labels) previews and comes up from nothing, the Computer's
// check waiting for the folder its Mount makes, in YAML (the CLI's up, which previews first) and
// in TypeScript (an Automation API inline program, previewed then brought up); a literal mount to
// a folder nobody makes is still refused at preview. And the fleet examples' shape (labels from a
// claim, unknown at preview) with bad sizes, lifetimes and allowlists: one preview refuses each
// in its words, and an up makes nothing (no folder, no claim, no computer). Every container is
// removed by its exact name, pass or fail.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as pulumi from "@pulumi/pulumi";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { Computer, Mount } from "../../provider/sdk/index.js";
import { computerStack, type ComputerStack } from "../../src/fleet/automation.js";
import { orThrow } from "../../src/daemon/result.js";
import { docker, exists, isRunning, removeContainers } from "../support/docker.js";
import { homeEnv, testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

describe("a Mount and a Computer on it, in one YAML stack, from nothing", () => {
  let base: string;
  let s: TestStack;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-first-yaml-"));
    s = await testStack(
      "first-yaml",
      {
        work: { type: "agentrun:index:Mount", properties: { path: join(base, "runs/r1/work") } },
        one: { type: "agentrun:index:Computer", properties: { lifetimeMs: 600_000, memoryMb: 256, mount: "${work.mount}", labels: { team: "first" } } },
      },
      { name: "${one.name}" },
    );
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
    await rm(base, { recursive: true, force: true });
  }, 300_000);

  test("previews, comes up (its preview first) with the folder 0700 at /workspace, and is destroyed leaving nothing", async () => {
    const preview = await s.cli("preview");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(0);
    expect(preview.stdout).toMatch(/\+ 3 to create/);
    const up = await s.cli("up", "--yes");
    const name = /computer-[0-9a-f]{12}/.exec(up.stdout)?.[0];
    if (name) s.made.add(name);
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    expect(await isRunning(name!)).toBe(true);
    const folder = await stat(join(base, "runs/r1/work"));
    expect(folder.mode & 0o7777).toBe(0o700);
    const inside = await docker("exec", name!, "sh", "-c", "touch /workspace/made && ls /workspace");
    expect(inside.stdout).toBe("made");
    const down = await s.cli("destroy", "--yes");
    expect(down.exitCode, down.stdout + down.stderr).toBe(0);
    expect(await exists(name!)).toBe(false);
    expect(existsSync(join(base, "runs/r1/work"))).toBe(false);
  }, 300_000);

  test("a literal mount to a folder no Mount makes is still refused at preview, in words", async () => {
    const nowhere = join(base, "nobody/makes/this");
    await s.program({ one: { type: "agentrun:index:Computer", properties: { lifetimeMs: 600_000, mount: { kind: "bind", path: nowhere } } } });
    const preview = await s.cli("preview");
    expect(preview.exitCode).not.toBe(0);
    expect(preview.stdout + preview.stderr).toContain(`the run folder ${nowhere} does not exist on the host; make it first`);
  }, 120_000);
});

describe("a Mount and a Computer on it, in one TypeScript program (the Automation API), from nothing", () => {
  let base: string;
  let s: ComputerStack<{ name: pulumi.Output<string> }>;
  const made = new Set<string>();

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-first-ts-"));
    s = orThrow(
      await computerStack({
        stack: "first",
        program: () => {
          const work = new Mount("work", { path: join(base, "runs/r1/work") });
          const one = new Computer("one", { lifetimeMs: 600_000, memoryMb: 256, mount: work.mount, labels: { team: "first" } });
          return { name: one.name };
        },
        passphrase: "agentrun-test",
        state: join(base, "state"),
        pulumi: toolchain().pulumiBin,
        env: homeEnv(join(base, "home")),
      }),
    );
  }, 120_000);

  afterAll(async () => {
    try {
      await s?.destroy({ remove: true });
    } finally {
      await removeContainers(made);
      await rm(base, { recursive: true, force: true });
    }
  }, 300_000);

  test("previews, comes up and is destroyed leaving nothing", async () => {
    const preview = await s.stack.preview({ color: "never" });
    expect(preview.changeSummary).toEqual({ create: 3 });
    const up = orThrow(await s.up());
    made.add(up.outputs.name);
    expect(up.changes).toEqual({ create: 3 });
    expect(await isRunning(up.outputs.name)).toBe(true);
    expect(orThrow(await s.destroy()).changes).toEqual({ delete: 3 });
    expect(await exists(up.outputs.name)).toBe(false);
    expect(existsSync(join(base, "runs/r1/work"))).toBe(false);
  }, 300_000);
});

describe("the fleet examples' shape (labels from a claim, unknown at preview): bad input refused at preview, nothing made", () => {
  let base: string;
  let s: TestStack;
  const run = `e2e-first-bad-${randomBytes(4).toString("hex")}`;
  // Every fault at once: the engine stops a preview at its first resource refused, and a
  // resource's check says all of its refusals together.
  const faults = { cpus: 64, memoryMb: 1, lifetimeMs: -5, network: "allow", allow: ["*.com"] };
  const said = {
    cpus: "property cpus value {64} has a problem: cpus is 64, more than this Docker host's",
    memoryMb: "property memoryMb value {1} has a problem: memoryMb is a whole number of MiB from 6 (Docker's least) up",
    lifetimeMs: "property lifetimeMs value {-5} has a problem: lifetimeMs is a whole number of milliseconds from 1 to 2592000000 (30 days)",
    allow: 'has a problem: network.allow: "*.com"',
  };
  const stackOf = (fault: Record<string, unknown>) => ({
    work: { type: "agentrun:index:Mount", properties: { path: join(base, "runs/r1/work") } },
    claim: { type: "agentrun:index:RunEpoch", properties: { run, epoch: 1 } },
    ...fault,
  });
  const computer = { type: "agentrun:index:Computer", properties: { mount: "${work.mount}", labels: "${claim.labels}", ...faults } };
  // The README's shape: a Fleet whose template is at fault.
  const fleet = {
    type: "agentrun:index:Fleet",
    properties: { size: 1, template: { lifetimeMs: 600_000, memoryMb: 2 }, mount: "${work.mount}", labels: "${claim.labels}" },
  };

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-first-bad-"));
    s = await testStack("first-bad", stackOf({ bad: computer }));
    // This machine's interfaces are not the Docker host's: an allowlist needs the host's named.
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ egress: { hostAddresses: ["192.0.2.1"] } }) });
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
    await rm(base, { recursive: true, force: true });
  }, 300_000);

  const nothingMade = async () => {
    expect(existsSync(join(base, "runs"))).toBe(false);
    const exported = JSON.parse((await s.cli("stack", "export")).stdout) as { deployment: { resources?: Array<{ type: string }> } };
    expect((exported.deployment.resources ?? []).map((r) => r.type).filter((t) => t.startsWith("agentrun:"))).toEqual([]);
    expect((await docker("ps", "-a", "--filter", `label=agentrun.run=${run}`, "--format", "{{.Names}}")).stdout).toBe("");
  };

  test("one preview refuses each bad size, lifetime and allowlist entry in its words, once each, and an up makes nothing", async () => {
    const preview = await s.cli("preview");
    const out = preview.stdout + preview.stderr;
    expect(preview.exitCode, out).not.toBe(0);
    const errors = out.split("\n").filter((l) => l.includes("error: agentrun:index:Computer resource 'bad'"));
    for (const words of Object.values(said))
      expect(
        errors.some((l) => l.includes(words)),
        `${words}\n${out}`,
      ).toBe(true);
    // One refusal per fault: nothing else, the mount's least of all.
    expect(new Set(errors.map((l) => l.slice(l.indexOf("error:")))).size, out).toBe(Object.keys(said).length);
    expect(out).not.toContain("does not exist on the host");

    const up = await s.cli("up", "--yes");
    expect(up.exitCode).not.toBe(0);
    expect(up.stdout + up.stderr).toContain(said.cpus);
    await nothingMade();
  }, 300_000);

  test("a Fleet's template at fault is refused at preview in its child's words, and an up makes nothing", async () => {
    await s.program(stackOf({ agents: fleet }));
    const preview = await s.cli("preview");
    const out = preview.stdout + preview.stderr;
    expect(preview.exitCode, out).not.toBe(0);
    expect(out).toMatch(/agentrun:index:Computer resource 'agents-0': property memoryMb value \{2\} has a problem: memoryMb is a whole number of MiB from 6/);
    expect((await s.cli("up", "--yes")).exitCode).not.toBe(0);
    await nothingMade();
  }, 300_000);
});
