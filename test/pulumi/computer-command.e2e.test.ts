// ComputerCommand through the real Pulumi engine, as a story: up runs the command once inside a
// computer and reads back its result; a second up and a refresh run nothing; a new trigger runs it
// once more; destroy leaves no computer. A counter file inside counts the runs.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, exists } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { toolchain } from "../support/toolchain.js";

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
  const outputs = { name: "${box.name}", results: "${step.results}", stdout: "${step.stdout}" };

  beforeAll(async () => {
    s = await testStack("computer-command", { box, step: step("one") }, outputs);
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ image: toolchain().baseImage }) });
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("up runs the command once and reads back its result", async () => {
    const up = await s.stack.up({ color: "never" });
    name = String(up.outputs.name?.value);
    s.made.add(name);
    expect(up.outputs.results?.value).toEqual({ "out/result.json": '{"runs": 1}\n' });
    expect(up.outputs.stdout?.value).toBe("done\n");
    expect(await inside(name, "ls -A ~/.agentrun/run")).toBe("");
  }, 300_000);

  test("a second up and a refresh run nothing", async () => {
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toEqual({ same: 3 });
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
    expect(await inside(name, "wc -l < ~/runs.txt")).toBe("1");
  }, 300_000);

  test("a new trigger runs it once more", async () => {
    await s.program({ box, step: step("two") }, outputs);
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect(up.outputs.results?.value).toEqual({ "out/result.json": '{"runs": 2}\n' });
    expect(await inside(name, "wc -l < ~/runs.txt")).toBe("2");
  }, 300_000);

  test("destroy leaves no computer and no run folder", async () => {
    await s.stack.destroy({ color: "never" });
    expect(await exists(name)).toBe(false);
  }, 300_000);
});
