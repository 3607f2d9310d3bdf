// examples/task-env through the real Pulumi engine, as a story: up makes the computer, loads the
// CSV, starts the app and runs the check, which reads both from inside; a second up changes
// nothing; the CSV edited inside and the app's service killed each show as drift (preview
// --refresh exits 7); up --refresh heals both; the steps taken out leave nothing inside; destroy
// leaves no computer.
import { readFile } from "node:fs/promises";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { docker, exists } from "../support/docker.js";
import { testStack, type TestStack } from "../support/stack.js";
import { ROOT, toolchain } from "../support/toolchain.js";

const example = parse(await readFile(`${ROOT}/examples/task-env/Pulumi.yaml`, "utf8"));
const inside = async (name: string, script: string) => (await docker("exec", name, "bash", "-c", script)).stdout;
const csv = "id,name,score\n1,ada,0.91\n2,grace,0.87\n3,alan,0.78";

describe("examples/task-env through the real engine", () => {
  let s: TestStack;
  let name = "";

  beforeAll(async () => {
    s = await testStack("task-env", example.resources, example.outputs);
    await s.stack.setConfig("agentrun:docker", { value: JSON.stringify({ image: toolchain().baseImage }) });
  }, 120_000);

  afterAll(async () => {
    await s?.dispose();
  }, 300_000);

  test("up makes the environment, and the check inside reads the CSV and the app", async () => {
    const up = await s.stack.up({ color: "never" });
    name = String(up.outputs.computer?.value);
    s.made.add(name);
    expect(up.outputs.check?.value).toEqual({ "results/check.json": '{"rows": 3, "app": {"title":"Task scores"}}\n' });
    expect(await inside(name, "cat ~/Documents/scores.csv")).toBe(csv);
  }, 300_000);

  test("a second up changes nothing", async () => {
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toEqual({ same: 5 });
  }, 300_000);

  test("the CSV edited inside: preview --refresh exits 7 naming it", async () => {
    await inside(name, "echo 4,edsger,0.99 >> ~/Documents/scores.csv");
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toContain("Documents/scores.csv was changed inside the computer");
  }, 300_000);

  test("the app's service killed: preview --refresh exits 7 naming it", async () => {
    await inside(name, "kill -9 $(for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^perl serve.pl' && echo ${p#/proc/}; done)");
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout).toContain("the service web is not running (ended on KILL)");
  }, 300_000);

  test("up --refresh heals both, and then nothing drifts", async () => {
    const up = await s.stack.up({ color: "never", refresh: true });
    expect(up.summary.resourceChanges).toMatchObject({ update: 2 });
    expect(await inside(name, "cat ~/Documents/scores.csv")).toBe(csv);
    expect(await inside(name, "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET / HTTP/1.0\\r\\n\\r\\n' >&3 && tail -n 1 <&3")).toBe('{"title":"Task scores"}');
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
  }, 300_000);

  test("the steps taken out leave nothing inside; destroy leaves no computer", async () => {
    await s.program({ box: example.resources.box }, { computer: "${box.name}" });
    const up = await s.stack.up({ color: "never" });
    expect(up.summary.resourceChanges).toMatchObject({ delete: 3 });
    // No file is left in the home (the folders the steps made stay, empty), no app, no run.
    expect(await inside(name, "find ~ -type f")).toBe("");
    expect(await inside(name, "ls -A ~/.agentrun/apps ~/.agentrun/run")).toBe("/work/.agentrun/apps:\n\n/work/.agentrun/run:");
    expect(await inside(name, "for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -q '^AGENTRUN_APP=' && echo $p; done; true")).toBe("");
    await s.stack.destroy({ color: "never" });
    expect(await exists(name)).toBe(false);
  }, 300_000);
});
