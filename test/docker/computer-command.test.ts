// ComputerCommand against a real Docker computer: a run staged, run as the computer's user,
// its results read back and its folder removed; a failure and a timeout reported; and the seed's
// chaos cases: the connection cut mid-command (fails naming the cause, not resent; the retry runs
// once and leaves nothing), leftovers of an earlier run ended by the next staging, and a command
// past its timeout (nothing of it left running, its folder removed).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { computerCommand, runKey } from "../../provider/resources/computer-command.js";
import { listProcesses } from "../../src/daemon/processes.js";
import { openSession } from "../../src/inside/session.js";
import { RUN_MARK, runFolder } from "../../src/inside/run.js";
import { cutBridges, docker, inside, makeComputer, stepContext } from "../support/inside-helpers.js";

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
    const ctx = stepContext();
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
