// The TypeScript example's program (examples/typescript/program.ts, the function its index.ts
// calls) through the real Pulumi engine, run inline by @agentrun/computer/automation: no Node.js
// language host. The story: up makes the run's folder, its claim and two computers, with the
// outputs typed and the plugin's progress forwarded; a second up changes nothing; check finds
// nothing; a computer changed by hand shows in check (a preview with refresh) by name, field and
// words; a plain up heals it (the Automation API's project asks for refresh: always); destroy
// leaves nothing. Every container is removed by its exact name, pass or fail.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileSync } from "node:fs";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { computerStack, type ComputerStack, type Progress } from "../../src/fleet/automation.js";
import { orThrow } from "../../src/daemon/result.js";
import { program, type RunOutputs } from "../../examples/typescript/program.js";
import { docker, exists, isRunning, removeContainers } from "../support/docker.js";
import { homeEnv } from "../support/stack.js";
import { ROOT, toolchain } from "../support/toolchain.js";

describe("the TypeScript example through the real engine, by the Automation API", () => {
  const run = `ts-${randomBytes(4).toString("hex")}`;
  const made = new Set<string>();
  const progress: Progress[] = [];
  let base: string;
  let s: ComputerStack<RunOutputs>;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-ts-"));
    const opened = await computerStack({
      stack: run,
      program: () => program({ run, epoch: 1, folder: join(base, "work") }),
      passphrase: "agentrun-test",
      state: join(base, "state"),
      settings: { docker: { image: toolchain().baseImage } },
      pulumi: toolchain().pulumiBin,
      env: homeEnv(join(base, "home")),
      onProgress: (p) => progress.push(p),
    });
    s = orThrow(opened);
  }, 120_000);

  afterAll(async () => {
    try {
      await s?.destroy({ remove: true });
    } finally {
      await removeContainers(made);
      await rm(base, { recursive: true, force: true });
    }
  }, 300_000);

  test("up makes two running computers, hands back their names typed, and forwards the plugin's progress", async () => {
    const up = orThrow(await s.up());
    const names: string[] = up.outputs.names;
    for (const name of names) made.add(name);
    expect(names).toHaveLength(2);
    for (const name of names) expect(await isRunning(name)).toBe(true);
    expect(up.outputs.drift).toEqual([[], []]);
    expect(up.changes).toEqual({ create: 5 });
    expect(existsSync(join(base, "work"))).toBe(true);
    expect(progress).toContainEqual({ kind: "step", op: "create", type: "agentrun:index:Computer", name: "a", status: "done" });
    expect(progress).toContainEqual(
      expect.objectContaining({
        kind: "note",
        type: "agentrun:index:Computer",
        name: "b",
        message: "waiting for the docker computer to start and its daemon to answer",
      }),
    );
  }, 300_000);

  test("a second up changes nothing", async () => {
    expect(orThrow(await s.up()).changes).toEqual({ same: 5 });
  }, 120_000);

  test("check reads everything back and finds it as declared", async () => {
    const check = orThrow(await s.check());
    expect(check.drifted).toEqual([]);
    expect(check.asDeclared).toBe(true);
  }, 120_000);

  test("a computer changed by hand (docker update --memory): check names it, the field and the drift, and changes nothing", async () => {
    const [, b] = orThrow(await s.outputs()).names;
    expect((await docker("update", "--memory", "200m", "--memory-swap", "256m", b!)).exitCode).toBe(0);
    const check = orThrow(await s.check());
    expect(check.asDeclared).toBe(false);
    expect(check.drifted).toHaveLength(1);
    expect(check.drifted[0]).toMatchObject({ name: "b", type: "agentrun:index:Computer", op: "replace" });
    expect(check.drifted[0]!.fields).toContain("memoryMb");
    expect(check.drifted[0]!.drift.join(" ")).toMatch(/memory/i);
    expect(await isRunning(b!)).toBe(true);
  }, 180_000);

  test("a plain up heals it: the project refreshes on every up, so the changed computer is made again", async () => {
    const [, b] = orThrow(await s.outputs()).names;
    const up = orThrow(await s.up());
    expect(up.changes).toMatchObject({ replace: 1 });
    expect(up.outputs.names[1]).not.toBe(b);
    made.add(up.outputs.names[1]!);
    expect(await exists(b!)).toBe(false);
    expect(orThrow(await s.check()).asDeclared).toBe(true);
  }, 300_000);

  test("destroy releases the computers, the claim and the folder", async () => {
    const { names } = orThrow(await s.outputs());
    const destroyed = orThrow(await s.destroy());
    expect(destroyed.changes).toEqual({ delete: 5 });
    for (const name of names) expect(await exists(name)).toBe(false);
    expect(existsSync(join(base, "work"))).toBe(false);
  }, 300_000);
});

describe("examples/typescript/automation.ts, run as its README says", () => {
  const made = new Set<string>();
  let base: string;

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-ts-readme-"));
  });

  afterAll(async () => {
    await removeContainers(made);
    await rm(base, { recursive: true, force: true });
  }, 120_000);

  test("the README's three lines compile it with the example's tsconfig, make two computers and destroy them", async () => {
    const readme = readFileSync(join(ROOT, "examples/typescript/README.md"), "utf8");
    const block = /```sh\n(\. dist\/toolchain\.env\n[^`]*automation\.js\n)```/.exec(readme)?.[1];
    expect(block).toBeDefined();
    const ran = await execa("bash", ["-euo", "pipefail", "-c", block!], {
      cwd: ROOT,
      env: { STATE: join(base, "state"), ...homeEnv(join(base, "home")) },
      reject: false,
    });
    for (const name of /^made (.*);/m.exec(ran.stdout)?.[1]?.split(", ") ?? []) made.add(name);
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(ran.stdout).toMatch(/^made computer-[0-9a-f]{12}, computer-[0-9a-f]{12}; drift: \[\[\],\[\]\]$/m);
    expect(ran.stdout).toContain("destroyed run r1");
    for (const name of made) expect(await exists(name)).toBe(false);
  }, 300_000);
});
