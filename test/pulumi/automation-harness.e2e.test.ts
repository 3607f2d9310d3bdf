// examples/automation, the run harness an agent platform's service would write: five computers
// brought up through the real engine by @agentrun/computer/automation, a command run on each
// through the library, and all of them destroyed, the stack forgotten. Anything the run's label
// still finds after it is removed, pass or fail: the label is this run's alone.
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import type { Progress } from "../../src/fleet/automation.js";
import { runHarness, type Ran } from "../../examples/automation/harness.js";
import { docker, removeContainers } from "../support/docker.js";
import { homeEnv } from "../support/stack.js";
import { ROOT, toolchain } from "../support/toolchain.js";

const ofRun = async (run: string) =>
  (await docker("ps", "-a", "--filter", `label=agentrun.run=${run}`, "--format", "{{.Names}}")).stdout.split("\n").filter(Boolean);

describe("the run harness (examples/automation)", () => {
  const run = `harness-${randomBytes(4).toString("hex")}`;
  const progress: Progress[] = [];
  let base: string;
  let ran: Ran[];

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), "agentrun-harness-"));
  });

  afterAll(async () => {
    await removeContainers(await ofRun(run));
    await rm(base, { recursive: true, force: true });
  }, 120_000);

  test("type-checks against the package's exports", async () => {
    const r = await execa("npx", ["tsc", "-p", `${ROOT}/examples/automation/tsconfig.json`, "--noEmit"], { reject: false, cwd: ROOT });
    expect(r.stdout + r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
  }, 120_000);

  test("makes five computers, runs the command on each through the library, and destroys them", async () => {
    ran = await runHarness({
      run,
      argv: ["sh", "-c", "echo ran as $(id -u) in $(hostname)"],
      passphrase: "agentrun-test",
      state: join(base, "state"),
      image: toolchain().baseImage,
      pulumi: toolchain().pulumiBin,
      env: homeEnv(join(base, "home")),
      onProgress: (p) => progress.push(p),
    });
    expect(ran).toHaveLength(5);
    expect(new Set(ran.map((r) => r.computer)).size).toBe(5);
    for (const r of ran) {
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toMatch(/^ran as [1-9]\d* in \S+\n$/);
    }
    expect(await ofRun(run)).toEqual([]);
    const computerSteps = (op: string) =>
      progress.filter((p) => p.kind === "step" && p.type === "agentrun:index:Computer" && p.op === op && p.status === "done");
    expect(computerSteps("create")).toHaveLength(5);
    expect(computerSteps("delete")).toHaveLength(5);
  }, 600_000);
});
