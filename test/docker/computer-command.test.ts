// ComputerCommand against a real Docker computer: a run staged, run as the computer's user,
// its results read back and its folder removed; a failure and a timeout reported; and the seed's
// chaos cases: the connection cut mid-command (fails naming the cause, not resent; the retry runs
// once and leaves nothing), leftovers of an earlier run ended by the next staging, and a command
// past its timeout (nothing of it left running, its folder removed).
import { afterAll, beforeAll, describe, expect, onTestFinished, test } from "vitest";
import { computerCommand, runKey } from "../../provider/resources/computer-command.js";
import { listProcesses } from "../../src/daemon/processes.js";
import { openSession } from "../../src/inside/session.js";
import { RUN_MARK, runFolder } from "../../src/inside/run.js";
import { bridgedProvider, cutBridges, docker, inside, makeComputer, stepContext } from "../support/inside-helpers.js";

let computer: { name: string; remove(): Promise<void> };
beforeAll(async () => {
  computer = await makeComputer();
}, 120_000);
afterAll(async () => {
  await computer?.remove();
}, 60_000);

const make = async (news: Record<string, unknown>) => {
  const checked = await computerCommand.check(stepContext(), {}, { computer: computer.name, ...news });
  expect(checked.failures ?? []).toEqual([]);
  return checked.inputs!;
};
/** Processes still running inside whose environment carries a run's mark. */
const marked = async () =>
  (await inside(computer.name, `for p in /proc/[0-9]*; do tr '\\0' '\\n' < $p/environ 2>/dev/null | grep -q '^${RUN_MARK}=' && echo \${p#/proc/}; done; true`))
    .stdout;
const runsLeft = async () => (await inside(computer.name, "ls -A ~/.agentrun/run 2>/dev/null; true")).stdout;

describe("ComputerCommand on a real computer", () => {
  test("runs a script from the home with stdin and env, reads back its result, and removes its folder", async () => {
    const inputs = await make({
      command: 'read line; echo "$line $GREETING from $(pwd)"; echo warn >&2; mkdir -p out; printf \'{"ok":true}\' > out/r.json',
      stdin: "hello\n",
      env: { GREETING: "world" },
      resultPaths: ["out/r.json"],
    });
    const created = await computerCommand.create(stepContext(), inputs);
    expect(created.outs).toMatchObject({
      exitCode: 0,
      stdout: "hello world from /work\n",
      stderr: "warn\n",
      results: { "out/r.json": '{"ok":true}' },
      runId: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    expect(await runsLeft()).toBe("");
  }, 120_000);

  test("an argv that exits non-zero fails the step with its code and stderr", async () => {
    const inputs = await make({ command: ["sh", "-c", "echo broken >&2; exit 3"] });
    await expect(computerCommand.create(stepContext(), inputs)).rejects.toThrow(`${computer.name}: the command exited 3: broken`);
    expect(await runsLeft()).toBe("");
  }, 120_000);

  test("a result the command did not write fails the step, naming it", async () => {
    const inputs = await make({ command: "true", resultPaths: ["nothing/here.txt"] });
    await expect(computerCommand.create(stepContext(), inputs)).rejects.toThrow(`${computer.name}: the command left no result nothing/here.txt`);
  }, 120_000);

  test("read never runs it again, and a computer that is gone drops it", async () => {
    const inputs = await make({ command: "echo once >> ~/reads.txt" });
    const created = await computerCommand.create(stepContext(), inputs);
    const read = await computerCommand.read(stepContext(), String(created.id), created.outs!);
    expect(read.id).toBe(created.id);
    expect((await inside(computer.name, "wc -l < ~/reads.txt")).stdout).toBe("1");
    expect(await computerCommand.read(stepContext(), String(created.id), { ...created.outs, computer: "computer-000000000000" })).toEqual({});
  }, 120_000);
});

describe("ComputerCommand as a check that grades", () => {
  test("allowFailure keeps a failing exit as its verdict: exit code, tails, the result it left and its reward", async () => {
    const inputs = await make({
      command: "mkdir -p out; echo '{\"failed\": 2}' > out/r.json; echo 0.25 > out/reward; echo ran; echo 2 tests failed >&2; exit 1",
      resultPaths: ["out/r.json", "out/missing.json"],
      rewardPath: "out/reward",
      allowFailure: true,
    });
    const said: string[] = [];
    const created = await computerCommand.create(stepContext(said), inputs);
    expect(created.outs).toMatchObject({
      passed: false,
      timedOut: false,
      exitCode: 1,
      stdout: "ran\n",
      stderr: "2 tests failed\n",
      results: { "out/r.json": '{"failed": 2}\n' },
      resultEncodings: { "out/r.json": "utf8" },
      reward: 0.25,
    });
    expect(said).toContain("the command exited 1: kept as its verdict (allowFailure)");
    expect(await runsLeft()).toBe("");
  }, 120_000);

  test("allowFailure keeps a timeout as its verdict", async () => {
    const inputs = await make({ command: "sleep 30", timeoutSeconds: 1, allowFailure: true });
    const created = await computerCommand.create(stepContext(), inputs);
    expect(created.outs).toMatchObject({ passed: false, timedOut: true, results: {} });
    expect(await marked()).toBe("");
  }, 120_000);

  test("a passing run gives its reward as a number", async () => {
    const inputs = await make({ command: "echo 1 > reward.txt", rewardPath: "reward.txt" });
    expect((await computerCommand.create(stepContext(), inputs)).outs).toMatchObject({ passed: true, exitCode: 0, reward: 1 });
  }, 120_000);

  test("result and reward files an earlier run left are removed before the run", async () => {
    await inside(computer.name, "mkdir -p ~/old && echo stale > ~/old/r.json && echo 1 > ~/old/reward && ln -sf /etc/hostname ~/old/link");
    const inputs = await make({
      command: "for f in old/r.json old/reward old/link; do [ -e $f ] || [ -h $f ] && echo there $f; done; exit 1",
      resultPaths: ["old/r.json", "old/link"],
      rewardPath: "old/reward",
      allowFailure: true,
    });
    const created = await computerCommand.create(stepContext(), inputs);
    expect(created.outs).toMatchObject({ passed: false, exitCode: 1, stdout: "", results: {} });
    expect(created.outs).not.toHaveProperty("reward");
    expect(await runsLeft()).toBe("");
  }, 120_000);

  test("a passing run that leaves no reward file fails the step, naming it", async () => {
    const inputs = await make({ command: "true", rewardPath: "no/reward" });
    await expect(computerCommand.create(stepContext(), inputs)).rejects.toThrow(`${computer.name}: the command left no reward file no/reward`);
  }, 120_000);

  test("a reward file that is not a number fails the step in words, not quoting it", async () => {
    const inputs = await make({ command: "echo 'all good!' > reward.txt", rewardPath: "reward.txt", allowFailure: true });
    await expect(computerCommand.create(stepContext(), inputs)).rejects.toThrow(
      `${computer.name}: the reward file reward.txt holds 10 bytes that are not one number: a reward is a number such as 1, 0.75 or -2e-3`,
    );
    expect(await runsLeft()).toBe("");
  }, 120_000);

  test("a result file that cannot be removed stops the run in words, and the command is not run", async () => {
    await inside(computer.name, "mkdir -p ~/stuck/r.json/inner");
    const inputs = await make({ command: "echo ran >> ~/stuck-count", resultPaths: ["stuck/r.json"] });
    await expect(computerCommand.create(stepContext(), inputs)).rejects.toThrow(
      `${computer.name}: rm of the result and reward files exited 1: rm: cannot remove 'stuck/r.json': Is a directory. A result or reward file an earlier run left could not be removed, so the command was not run: it would be read as this run's`,
    );
    expect((await inside(computer.name, "cat ~/stuck-count 2>/dev/null; true")).stdout).toBe("");
    expect(await runsLeft()).toBe("");
  }, 120_000);

  test("a binary result is read as bytes and kept as base64", async () => {
    const inputs = await make({ command: "printf '\\211PNG\\r\\n\\032\\n\\000\\377' > shot.png", resultPaths: ["shot.png"] });
    const outs = (await computerCommand.create(stepContext(), inputs)).outs!;
    expect(outs.resultEncodings).toEqual({ "shot.png": "base64" });
    expect(Buffer.from((outs.results as Record<string, string>)["shot.png"]!, "base64")).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]),
    );
  }, 120_000);

  test("delete removes the reward file with the result files", async () => {
    const inputs = await make({
      command: "mkdir -p graded; echo 1 > graded/reward; echo ok > graded/r.txt",
      resultPaths: ["graded/r.txt"],
      rewardPath: "graded/reward",
    });
    const created = await computerCommand.create(stepContext(), inputs);
    await computerCommand.delete(stepContext(), String(created.id), created.outs!);
    expect((await inside(computer.name, "ls -A ~/graded")).stdout).toBe("");
  }, 120_000);
});

describe("chaos", () => {
  test("a command past its timeout is reported, nothing of it is left running, and its folder is removed", async () => {
    const inputs = await make({ command: "sleep 100 & sleep 100; echo never", timeoutSeconds: 2 });
    await expect(computerCommand.create(stepContext(), inputs)).rejects.toThrow(
      `${computer.name}: the command ran past its timeout of 2 s and was stopped, with everything it started; its folder is removed`,
    );
    expect(await marked()).toBe("");
    expect(
      (await inside(computer.name, "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^sleep 100' && echo $p; done; true")).stdout,
    ).toBe("");
    expect(await runsLeft()).toBe("");
  }, 120_000);

  test("the connection cut mid-command fails naming the computer, the call and the cause; it is not resent; the retry runs once and leaves nothing", async () => {
    // Through the bridge, which the cut kills from inside.
    const bridged = bridgedProvider();
    onTestFinished(() => bridged.close());
    const ctx = stepContext([], undefined, bridged.docker);
    const inputs = await make({ command: "echo run >> ~/cut-count; sleep 3" });
    const running = computerCommand.create(ctx, inputs);
    const failed = expect(running).rejects.toThrow(
      new RegExp(
        `^${computer.name}: the connection to its daemon broke during exec\\.run of the command \\(run [0-9a-f]{16}\\): exec\\.run got no reply: .+\\. It is not sent again \\(it may have run in part\\); the next up ends what is left of it and runs it once$`,
      ),
    );
    for (let i = 0; i < 100 && (await inside(computer.name, "cat ~/cut-count 2>/dev/null; true")).stdout === ""; i++)
      await new Promise((r) => setTimeout(r, 100));
    await cutBridges(computer.name);
    await failed;
    await new Promise((r) => setTimeout(r, 1000));
    expect((await inside(computer.name, "wc -l < ~/cut-count")).stdout).toBe("1");

    await computerCommand.create(ctx, inputs);
    expect((await inside(computer.name, "wc -l < ~/cut-count")).stdout).toBe("2");
    expect(await marked()).toBe("");
    expect(await runsLeft()).toBe("");
  }, 120_000);

  test("staging ends what an earlier run left running from its folder, then runs the command once", async () => {
    const said: string[] = [];
    const ctx = stepContext(said);
    const opened = await openSession(docker, computer.name);
    if (!opened.ok) throw new Error(opened.error.message);
    const dir = runFolder(opened.value.home, runKey(ctx.urn));
    // What a run whose daemon went away would leave: a process of its folder that outlived its call.
    const left = await opened.value.client.call("process.start", { argv: ["sleep", "300"], env: { [RUN_MARK]: dir }, orphans: "keep" });
    const inputs = await make({ command: "echo run >> ~/left-count" });
    await computerCommand.create(ctx, inputs);
    const table = await listProcesses(opened.value.client);
    await opened.value.close();
    expect(table.ok && table.value.find((p) => p.id === left.id)).toMatchObject({ running: false, signal: "KILL" });
    expect(said).toContain(`ended 1 process(es) an earlier run of this command left running in ${computer.name}`);
    expect((await inside(computer.name, "wc -l < ~/left-count")).stdout).toBe("1");
    expect(await runsLeft()).toBe("");
  }, 120_000);
});
