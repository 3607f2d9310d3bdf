// examples/task-env through the real Pulumi engine, as a story: up makes the desktop, loads the
// CSV, installs and launches the app, shows the viewer's window, runs the agent's stand-in (which gives the app its answer
// at the app's address) and the verifier, which grades it to a reward; a second up changes
// nothing; a wrong answer re-verified is a failing verdict kept in state, not a failed up; the
// CSV edited and the launch killed inside each show as drift, and up --refresh heals both (the
// verifier, run again, grades the answer put right to a reward of 1); destroy leaves no computer.
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, exists } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { ROOT } from "../support/toolchain.js";

const example = parse(await readFile(`${ROOT}/examples/task-env/Pulumi.yaml`, "utf8"));
// The stack runs from a folder of its own: the viewer's folder is named where the example has it.
example.resources["scores-viewer"].properties.files = { "fn::fileArchive": `${ROOT}/examples/task-env/viewer` };
const inside = async (name: string, script: string) => (await docker("exec", name, "bash", "-c", script)).stdout;
const csv = "id,name,score\n1,ada,0.91\n2,grace,0.87\n3,alan,0.78";
/** Gives the app an answer from inside, as an agent would. */
const answer = (name: string, text: string) =>
  inside(
    name,
    `exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'POST /answer HTTP/1.0\\r\\nContent-Length: ${text.length}\\r\\n\\r\\n${text}' >&3 && cat <&3 >/dev/null`,
  );

describe("examples/task-env through the real engine", () => {
  let s: TestStack;
  let name = "";

  beforeAll(async () => {
    // No image set: a desktop gets the provider's desktop image.
    s = await testStack("task-env", example.resources, example.outputs);
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("up makes the environment, and the verifier grades the agent's answer to a reward of 1", async () => {
    const up = await s.stack.up({ color: "never" });
    name = String(up.outputs.computer?.value);
    s.made.add(name);
    expect(up.outputs.address?.value).toBe("http://127.0.0.1:8080");
    expect(up.outputs.skill?.value).toContain("POST /answer with the name of the top scorer");
    expect(up.outputs.window?.value).toEqual({ id: expect.any(Number), title: "Scores viewer" });
    expect(up.outputs.answered?.value).toBe("answered ada\n");
    expect([up.outputs.passed?.value, up.outputs.reward?.value]).toEqual([true, 1]);
    expect(up.outputs.verdict?.value).toEqual({ "results/verdict.json": '{"answer": "ada", "expected": "ada"}\n' });
    expect(await inside(name, "cat ~/Documents/scores.csv")).toBe(csv);
    expect(await inside(name, "cat ~/.agentrun/apps/scores-api/SKILL.md | head -n 1")).toBe("# scores-api");
  }, 600_000);

  test("a second up changes nothing", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toEqual({ same: 7 });
  }, 300_000);

  test("a wrong answer, verified again, is a failing verdict kept in state: the up passes with reward 0", async () => {
    await answer(name, "grace");
    const verify = { ...example.resources.verify, properties: { ...example.resources.verify.properties, triggers: ["${agent.runId}", "again"] } };
    await s.program({ ...example.resources, verify }, example.outputs);
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ replace: 1 });
    expect([up.outputs.passed?.value, up.outputs.reward?.value]).toEqual([false, 0]);
    expect(up.outputs.verdict?.value).toEqual({ "results/verdict.json": '{"answer": "grace", "expected": "ada"}\n' });
    const state = JSON.parse((await s.cli("stack", "export")).stdout);
    const verdict = state.deployment.resources.find((r: { urn: string }) => r.urn.endsWith("::verify")).outputs;
    expect(verdict).toMatchObject({ passed: false, exitCode: 1, reward: 0, stderr: "the answer was grace, not ada\n" });
    // The answer put right, and the program as the example has it: the next up verifies again.
    await answer(name, "ada");
    await s.program(example.resources, example.outputs);
  }, 300_000);

  test("the CSV edited and the launch killed inside: preview --refresh exits 7 naming both", async () => {
    await inside(name, "echo 4,edsger,0.99 >> ~/Documents/scores.csv");
    await inside(name, "kill -9 $(for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^perl serve.pl' && echo ${p#/proc/}; done)");
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toContain("Documents/scores.csv was changed inside the computer");
    expect(preview.stdout).toContain("the launch is not running (ended on KILL)");
  }, 300_000);

  test("up --refresh heals both, and the verifier, run again, grades the answer to a reward of 1; then nothing drifts", async () => {
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toMatchObject({ update: 2, replace: 1 });
    expect(await inside(name, "cat ~/Documents/scores.csv")).toBe(csv);
    expect([up.outputs.passed?.value, up.outputs.reward?.value]).toEqual([true, 1]);
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
  }, 300_000);

  test("destroy leaves no computer", async () => {
    await s.stack.destroy({ color: "never" });
    expect(await exists(name)).toBe(false);
  }, 300_000);
});
