// Which base the provider's own image stands on, said where a person running `pulumi up` reads it:
// among the Computer's diagnostics, kept after the step. This machine reaches no registry, so the
// pinned base cannot be pulled and the set-up's local base is the one used, with why; a second
// Computer of the same up does not say it again, and neither does a later up on the same machine
// (its HOME). (The pull path is test/docker/default-image.test.ts.)
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DOCKER_BASE } from "../../src/docker/default-image.js";
import { docker } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

describe("the base of the computers' own image", () => {
  let s: TestStack;
  let home: string;
  const line = `the docker computers' own image stands on the set-up's local base ${toolchain().baseImage}, as the pinned base ${DOCKER_BASE} could not be pulled (the registry could not be reached)`;

  beforeAll(async () => {
    // A machine of its own for what is said once per machine: the plugin's HOME.
    home = await mkdtemp(join(tmpdir(), "agentrun-default-base-home-"));
    const computer = { type: "agentrun:index:Computer", properties: { lifetimeMs: 600_000, network: "none", memoryMb: 256 } };
    s = await testStack("default-base", { a: computer, b: structuredClone(computer) }, { a: "${a.name}", b: "${b.name}" }, { env: { HOME: home } });
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
    await rm(home, { recursive: true, force: true });
  }, 300_000);

  test("is said once among a Computer's diagnostics by `pulumi up`: the local base, as the pinned one could not be pulled", async () => {
    const up = await s.cli("up", "--yes");
    for (const output of Object.values(await s.stack.outputs())) s.made.add(String(output.value));
    expect(up.exitCode, up.stdout.slice(-3000) + up.stderr.slice(-2000)).toBe(0);
    // Kept among the diagnostics the CLI prints after the update, under the Computer that said it, once.
    const diagnostics = up.stdout.split("\nDiagnostics:\n")[1] ?? "";
    expect(diagnostics).toMatch(new RegExp(`^  agentrun:index:Computer \\([ab]\\):\\n {4}${line.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\n`));
    expect(diagnostics.split(line)).toHaveLength(2);
    // A pull that did not happen is never called done.
    expect(up.stdout).not.toMatch(/pulling the computers' image .*: done in/);
  }, 600_000);

  test("is not said again on this machine by a later up that makes a computer", async () => {
    const { a } = await s.stack.outputs();
    expect((await docker("rm", "--force", String(a?.value))).exitCode).toBe(0);
    const up = await s.cli("up", "--yes", "--refresh");
    for (const output of Object.values(await s.stack.outputs())) s.made.add(String(output.value));
    expect(up.exitCode, up.stdout.slice(-3000)).toBe(0);
    expect(up.stdout).toMatch(/agentrun:index:Computer\s+a\s+created/);
    expect(up.stdout).not.toContain(line);
    expect(up.stdout).not.toMatch(/pulling the computers' image .*: done in/);
  }, 600_000);
});
