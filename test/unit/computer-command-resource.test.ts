// ComputerCommand without a computer: every check refusal in its words (a secret never quoted),
// its folder's key, and which changes run it again.
import { describe, expect, test } from "vitest";
import { computerCommand, encodeResult, MAX_TIMEOUT_SECONDS, runKey } from "../../provider/resources/computer-command.js";
import { rewardOf } from "../../src/inside/run.js";
import { addressVar } from "../../src/inside/app.js";
import { isSecret, secret } from "../../provider/secrets.js";
import { testContext } from "../support/context.js";

const ctx = testContext();
const reasons = async (news: Record<string, unknown>) =>
  ((await computerCommand.check(ctx, {}, { computer: "computer-0123456789ab", command: "true", ...news })).failures ?? []).map(
    (f) => `${f.property}: ${f.reason}`,
  );

describe("ComputerCommand check", () => {
  test.each([
    ["no command", { command: undefined }, "command: command is required: a script (run by sh from the home) or an argv, a list of strings"],
    ["an empty script", { command: "  " }, "command: command is required: a script (run by sh from the home) or an argv, a list of strings"],
    ["an empty argv", { command: [] }, "command: command is required: a script (run by sh from the home) or an argv, a list of strings"],
    ["an argv of numbers", { command: ["echo", 1] }, "command: command is required: a script (run by sh from the home) or an argv, a list of strings"],
    ["stdin that is no text", { stdin: 5 }, "stdin: stdin is text given to the command's standard input"],
    ["env that is a list", { env: ["A=1"] }, "env: env is a map of variable names to text"],
    ["an env name that is no variable", { env: { "A-B": "1" } }, 'env: env\'s name "A-B" is not a variable name (letters, digits and _, not first a digit)'],
    ["the runner's own variable", { env: { AGENTRUN_RUN: "x" } }, "env: env's AGENTRUN_RUN is the runner's own: name another"],
    ["an env value that is no text", { env: { A: 1 } }, "env: env's A must be text"],
    [
      "a timeout of 0",
      { timeoutSeconds: 0 },
      expect.stringMatching(
        /^timeoutSeconds: timeoutSeconds is whole seconds from 1 to 3590: the daemon's bound on a run is 3600 s, and the runner keeps 10 s of it/,
      ),
    ],
    [
      "a timeout that leaves the runner less than 10 s",
      { timeoutSeconds: MAX_TIMEOUT_SECONDS + 1 },
      expect.stringMatching(/^timeoutSeconds: timeoutSeconds is whole seconds from 1 to 3590/),
    ],
    ["a fractional timeout", { timeoutSeconds: 1.5 }, expect.stringMatching(/^timeoutSeconds: /)],
    ["triggers that are no list", { triggers: "x" }, "triggers: triggers is a list of values whose change runs the command again"],
    [
      "an absolute result path",
      { resultPaths: ["/etc/shadow"] },
      'resultPaths: a result path "/etc/shadow" is absolute: give it relative to the computer\'s home (Downloads/report.csv)',
    ],
    [
      "a result path that leaves the home",
      { resultPaths: ["../x"] },
      'resultPaths: a result path "../x" leaves the home: a step writes and reads only inside it',
    ],
    ["a result path with a NUL", { resultPaths: ["a\0"] }, 'resultPaths: a result path "a\\0" holds a NUL: a path inside the computer cannot'],
    ["a result path named twice", { resultPaths: ["out.json", "./out.json"] }, "resultPaths: the result path out.json is named twice"],
    [
      "an unknown field",
      { cwd: "/tmp" },
      'cwd: agentrun:index:ComputerCommand has no field "cwd"; it takes computer, provider, command, stdin, env, timeoutSeconds, triggers, resultPaths, rewardPath, allowFailure, apps',
    ],
    [
      "an absolute reward path",
      { rewardPath: "/tmp/reward" },
      'rewardPath: the reward path "/tmp/reward" is absolute: give it relative to the computer\'s home (Downloads/report.csv)',
    ],
    [
      "a reward path that leaves the home",
      { rewardPath: "a/../../r" },
      'rewardPath: the reward path "a/../../r" leaves the home: a step writes and reads only inside it',
    ],
    [
      "allowFailure that is no boolean",
      { allowFailure: "yes" },
      "allowFailure: allowFailure is true (a failing exit or a timeout is kept as this step's verdict) or false (it fails the step)",
    ],
    ["apps that are a list", { apps: ["http://127.0.0.1:8080"] }, "apps: apps is a map of app names to their addresses (a ComputerApp's `address` output)"],
    [
      "an app name that is no app's",
      { apps: { "Scores API": "http://127.0.0.1:8080" } },
      "apps: apps' name \"Scores API\" is not an app's name (lowercase letters, digits, _ and -, at most 63)",
    ],
    [
      "an app's address off the loopback",
      { apps: { scores: "http://10.0.0.5:8080" } },
      "apps: apps.scores is an address on the computer's loopback, http://127.0.0.1:<port> (a ComputerApp's `address`): a check reaches an app with no network",
    ],
    [
      "env naming an app's variable",
      { apps: { scores: "http://127.0.0.1:8080" }, env: { AGENTRUN_APP_SCORES_URL: "x" } },
      "apps: env's AGENTRUN_APP_SCORES_URL is the address of the app scores: name another",
    ],
    ["no computer", { computer: undefined }, "computer: computer is required: the name of the Computer to act inside (a Computer's `name` output)"],
  ])("refuses %s in words", async (_name, news, words) => {
    expect(await reasons(news)).toContainEqual(words);
  });

  test("takes the longest timeout that leaves the runner its 10 s", async () => {
    expect(await reasons({ timeoutSeconds: MAX_TIMEOUT_SECONDS })).toEqual([]);
  });

  test("a bad env name given as a secret is refused without quoting it", async () => {
    const said = await reasons({ env: secret({ "TOKEN-x": "s3cr3t" }) });
    expect(said).toEqual(["env: env (a secret) is refused"]);
  });

  test("fills in the defaults and keeps a secret input secret", async () => {
    const checked = await computerCommand.check(ctx, {}, { computer: "c", command: ["cat"], stdin: secret("token") });
    expect(checked.failures).toBeUndefined();
    expect(checked.inputs).toMatchObject({ computer: "c", provider: "docker", command: ["cat"], timeoutSeconds: 300, resultPaths: [], allowFailure: false });
    expect(isSecret(checked.inputs?.stdin)).toBe(true);
  });

  test("keeps result and reward paths in their normal form", async () => {
    const checked = await computerCommand.check(ctx, {}, { computer: "c", command: "true", resultPaths: ["./out//r.json"], rewardPath: "out/./reward" });
    expect(checked.inputs?.resultPaths).toEqual(["out/r.json"]);
    expect(checked.inputs?.rewardPath).toBe("out/reward");
  });
});

describe("ComputerCommand's folder", () => {
  test("is named for its URN alone, 16 hex digits", () => {
    const urn = "urn:pulumi:test::p::agentrun:index:ComputerCommand::check";
    expect(runKey(urn)).toMatch(/^[0-9a-f]{16}$/);
    expect(runKey(urn)).toBe(runKey(urn));
    expect(runKey(`${urn}2`)).not.toBe(runKey(urn));
  });

  test("a step with no URN is refused", () => {
    expect(() => runKey(undefined)).toThrow("a ComputerCommand step was given no URN, so it has no folder of its own");
  });
});

describe("ComputerCommand diff", () => {
  const olds = {
    computer: "c",
    provider: "docker",
    command: "true",
    env: { A: "1" },
    timeoutSeconds: 300,
    resultPaths: [],
    runId: "r",
    exitCode: 0,
    stdout: "",
    stderr: "",
    results: {},
  };
  const news = { computer: "c", provider: "docker", command: "true", env: { A: "1" }, timeoutSeconds: 300, resultPaths: [], allowFailure: false };
  test.each([
    ["command", { command: "false" }],
    ["stdin", { stdin: "x" }],
    ["env", { env: { A: "2" } }],
    ["triggers", { triggers: [1] }],
    ["apps", { apps: { scores: "http://127.0.0.1:8080" } }],
    ["computer", { computer: "d" }],
  ])("a change of %s runs it again (a replace, the old run deleted first so its delete never takes the new run's files)", async (field, change) => {
    expect(await computerCommand.diff(ctx, "run-r", olds, { ...news, ...change })).toEqual({ changes: true, replaces: [field], deleteBeforeReplace: true });
  });

  test.each([
    ["timeoutSeconds", { timeoutSeconds: 10 }],
    ["resultPaths", { resultPaths: ["a"] }],
    ["rewardPath", { rewardPath: "r" }],
    ["allowFailure", { allowFailure: true }],
  ])("a change of %s runs nothing (an update)", async (_f, change) => {
    expect(await computerCommand.diff(ctx, "run-r", olds, { ...news, ...change })).toEqual({ changes: true, replaces: [], deleteBeforeReplace: false });
  });

  test("no change is no change", async () => {
    expect(await computerCommand.diff(ctx, "run-r", olds, news)).toMatchObject({ changes: false });
  });

  test("state from before allowFailure reads as allowFailure false", async () => {
    expect(await computerCommand.diff(ctx, "run-r", olds, { ...news, allowFailure: false })).toMatchObject({ changes: false });
  });
});

describe("ComputerCommand's apps", () => {
  test.each([
    ["scores", "AGENTRUN_APP_SCORES_URL"],
    ["scores-api", "AGENTRUN_APP_SCORES_API_URL"],
    ["a_1", "AGENTRUN_APP_A_1_URL"],
  ])("the app %s's address is in %s", (name, variable) => {
    expect(addressVar(name)).toBe(variable);
  });

  test("takes loopback addresses, with a path", async () => {
    expect(await reasons({ apps: { a: "http://127.0.0.1:8080", b: "http://localhost:3000/mcp", c: "http://[::1]:1" } })).toEqual([]);
  });
});

describe("ComputerCommand's verdict", () => {
  test.each([
    ["1", 1],
    [" 0.75\n", 0.75],
    ["-2e-3", -0.002],
    ["0", 0],
  ])("reads the reward %j as %d", (text, n) => {
    expect(rewardOf(Buffer.from(text))).toBe(n);
  });

  test.each([["abc"], [""], ["1 2"], ["NaN"], ["Infinity"], ["0x10"], ["1e999"], ["01"], ["+1"]])("refuses the reward %j as no number", (text) => {
    expect(rewardOf(Buffer.from(text))).toBeUndefined();
  });

  test("keeps a text result as its text and a binary one as base64", () => {
    expect(encodeResult(Buffer.from("héllo\n"))).toEqual({ text: "héllo\n", encoding: "utf8" });
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]);
    expect(encodeResult(png)).toEqual({ text: png.toString("base64"), encoding: "base64" });
  });
});
