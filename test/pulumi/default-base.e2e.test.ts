// Which base the provider's own image stands on, said where a person running `pulumi up` reads it:
// among the Computer's diagnostics, kept after the step. This machine reaches no registry, so the
// pinned base cannot be pulled and the set-up's local base is the one used, with why; a second
// Computer of the same up does not say it again. (The pull path is test/docker/default-image.test.ts.)
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DOCKER_BASE } from "../../src/docker/default-image.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

describe("the base of the computers' own image", () => {
  let s: TestStack;

  beforeAll(async () => {
    const computer = { type: "agentrun:index:Computer", properties: { lifetimeMs: 600_000, network: "none", memoryMb: 256 } };
    s = await testStack("default-base", { a: computer, b: structuredClone(computer) }, { a: "${a.name}", b: "${b.name}" });
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("is said once among a Computer's diagnostics by `pulumi up`: the local base, as the pinned one could not be pulled", async () => {
    const up = await s.cli("up", "--yes");
    for (const output of Object.values(await s.stack.outputs())) s.made.add(String(output.value));
    expect(up.exitCode, up.stdout.slice(-3000) + up.stderr.slice(-2000)).toBe(0);
    const line = `the docker computers' own image stands on the set-up's local base ${toolchain().baseImage}, as the pinned base ${DOCKER_BASE} could not be pulled (the registry could not be reached)`;
    // Kept among the diagnostics the CLI prints after the update, under the Computer that said it, once.
    const diagnostics = up.stdout.split("\nDiagnostics:\n")[1] ?? "";
    expect(diagnostics).toMatch(new RegExp(`^  agentrun:index:Computer \\([ab]\\):\\n {4}${line.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}\\n`));
    expect(diagnostics.split(line)).toHaveLength(2);
  }, 600_000);
});
