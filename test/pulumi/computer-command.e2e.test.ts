// ComputerCommand through the real Pulumi engine, as a story: up runs the command once inside a
// computer and reads back its result; a check that fails is kept as its verdict (allowFailure);
// a second up and a refresh run nothing; a new trigger runs each once more, and a check re-run
// keeps its old verdict in the stack's history alone; destroy leaves no computer. A counter file
// inside counts the runs.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, exists } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

/** The local backend's history of the stack: each update's checkpoint, oldest first. */
async function historyCheckpoints(s: TestStack) {
  const files = (await readdir(join(s.dir, "state"), { recursive: true })).filter((f) => f.endsWith(".checkpoint.json")).sort();
  return Promise.all(files.map(async (f) => JSON.parse(await readFile(join(s.dir, "state", f), "utf8"))));
}

const inside = async (name: string, script: string) => (await docker("exec", name, "sh", "-c", script)).stdout;

describe("ComputerCommand through the real engine", () => {
  let s: TestStack;
  let name = "";
  const box = { type: "agentrun:index:Computer", properties: { lifetimeMs: 900_000, memoryMb: 256 } };
  const step = (trigger: string) => ({
    type: "agentrun:index:ComputerCommand",
    properties: {
      computer: "${box.name}",
      command: 'echo run >> ~/runs.txt; mkdir -p out; echo "{\\"runs\\": $(wc -l < ~/runs.txt)}" > out/result.json; echo done',
      triggers: [trigger],
      resultPaths: ["out/result.json"],
    },
  });
  // A verifier: passes, with reward 1, once the agent's answer is there; else fails with reward 0.
  const grade = (trigger: string) => ({
    type: "agentrun:index:ComputerCommand",
    properties: {
      computer: "${box.name}",
      command:
        'mkdir -p graded; if [ "$(cat answer.txt 2>/dev/null)" = 42 ]; then echo 1 > graded/reward; else echo 0 > graded/reward; echo wrong answer >&2; exit 1; fi',
      rewardPath: "graded/reward",
      allowFailure: true,
      triggers: [trigger],
    },
    options: { dependsOn: ["${step}"] },
  });
  const outputs = {
    name: "${box.name}",
    results: "${step.results}",
    stdout: "${step.stdout}",
    passed: "${grade.passed}",
    exitCode: "${grade.exitCode}",
    reward: "${grade.reward}",
  };

  beforeAll(async () => {
    s = await testStack("computer-command", { box, step: step("one"), grade: grade("one") }, outputs);
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ image: toolchain().baseImage }) });
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("up runs the command once and reads back its result; a failing check is kept as its verdict", async () => {
    const up = await s.stack.up({ color: "never" });
    name = String(up.outputs.name?.value);
    s.made.add(name);
    expect(up.outputs.results?.value).toEqual({ "out/result.json": '{"runs": 1}\n' });
    expect(up.outputs.stdout?.value).toBe("done\n");
    expect([up.outputs.passed?.value, up.outputs.exitCode?.value, up.outputs.reward?.value]).toEqual([false, 1, 0]);
    expect(await inside(name, "ls -A ~/.agentrun/run")).toBe("");
  }, 300_000);

  test("a second up and a refresh run nothing", async () => {
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toEqual({ same: 4 });
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
    expect(await inside(name, "wc -l < ~/runs.txt")).toBe("1");
  }, 300_000);

  test("a new trigger runs it once more", async () => {
    await s.program({ box, step: step("two"), grade: grade("one") }, outputs);
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect(up.outputs.results?.value).toEqual({ "out/result.json": '{"runs": 2}\n' });
    expect(await inside(name, "wc -l < ~/runs.txt")).toBe("2");
    // The old run was deleted before the new one ran, so its delete took none of the new run's files.
    expect(await inside(name, "cat ~/out/result.json")).toBe('{"runs": 2}');
  }, 300_000);

  test("the check re-run by its trigger holds the new verdict in state, the old one in the stack's history alone", async () => {
    const before = JSON.parse((await s.cli("stack", "export")).stdout);
    await inside(name, "echo 42 > ~/answer.txt");
    await s.program({ box, step: step("two"), grade: grade("two") }, outputs);
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect([up.outputs.passed?.value, up.outputs.exitCode?.value, up.outputs.reward?.value]).toEqual([true, 0, 1]);
    const verdicts = (deployment: { deployment: { resources: Array<{ urn: string; outputs?: Record<string, unknown> }> } }) =>
      deployment.deployment.resources.filter((r) => r.urn.endsWith("::grade")).map((r) => [r.outputs?.passed, r.outputs?.reward]);
    expect(verdicts(JSON.parse((await s.cli("stack", "export")).stdout))).toEqual([[true, 1]]);
    // The local backend keeps each update's checkpoint in its history: the update before this one holds the old verdict.
    const checkpoints = await historyCheckpoints(s);
    expect(checkpoints.length).toBeGreaterThanOrEqual(2);
    expect(verdicts({ deployment: checkpoints.at(-2)!.checkpoint.latest })).toEqual(verdicts(before));
    expect(verdicts(before)).toEqual([[false, 0]]);
  }, 300_000);

  test("destroy leaves no computer and no run folder", async () => {
    await s.stack.destroy({ color: "never" });
    expect(await exists(name)).toBe(false);
  }, 300_000);
});
