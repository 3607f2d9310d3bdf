// What `npm run up` shows of the set-up: one line per step with its time, the steps' own output
// in the log it names, and a failed step's last log lines with the log's path. The set-up runs
// for real (warm here, so each step finds its work done).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { ROOT } from "../support/toolchain.js";

const dir = mkdtempSync(path.join(tmpdir(), "agentrun-setup-lines-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STEP = /^\[setup\] (.+) … (ready in \d+ s|already there \(\d+ s\))$/;
const STARTED = /^\[setup\] (.+) … started beside the rest$/;
// What npm run up's set-up makes: the main job's parts alone, none of the tests' tools.
const MAIN_JOB = [
  "node modules",
  "Docker engine",
  "computerd (dist/computerd-linux-amd64, -arm64)",
  "Pulumi CLI",
  "base image",
  "TypeScript build",
  "computers' image (the provider's default)",
  // runsc registered with the engine, so a computer may declare runtime gvisor.
  "gVisor (runsc, for runtime gvisor)",
  // The Python side: PyPI's pulumi in a venv, and this tree's SDK installed for it.
  "Python venv and SDK (pulumi_agentrun)",
];
// Steps run side by side end in any order: the set of steps is the contract, not their order.
const sorted = (names: string[]) => [...names].sort();

describe("the set-up's lines under npm run up", () => {
  it("says one line per step with its time, and nothing else but the total", async () => {
    const log = path.join(dir, "setup.log");
    const run = await execa("bash", ["scripts/setup.sh"], { cwd: ROOT, env: { AGENTRUN_SETUP_LOG: log }, reject: false });
    expect(run.exitCode, String(run.stderr)).toBe(0);
    const lines = String(run.stderr)
      .split("\n")
      .filter((line) => !/^\[setup\] set-up done in \d+ s$/.test(line));
    const started = lines.flatMap((line) => STARTED.exec(line)?.[1] ?? []);
    const ended = lines.filter((line) => !STARTED.test(line)).map((line) => STEP.exec(line)?.[1] ?? `not a step line: ${line}`);
    expect(sorted(ended)).toEqual(sorted(MAIN_JOB));
    // A step started beside the rest says so once, and ends with its own line.
    expect(started.length).toBeGreaterThan(0);
    expect(started.filter((name) => !ended.includes(name))).toEqual([]);
    expect(readFileSync(log, "utf8")).toContain("== Pulumi CLI (");
  }, 600_000);

  it("makes the tests' own tools only when asked with --tests, as npm test asks", async () => {
    const run = await execa("bash", ["scripts/setup.sh", "--tests"], { cwd: ROOT, env: { AGENTRUN_SETUP_LOG: path.join(dir, "tests.log") }, reject: false });
    expect(run.exitCode, String(run.stderr)).toBe(0);
    const steps = String(run.stderr)
      .split("\n")
      .flatMap((line) => STEP.exec(line)?.[1] ?? []);
    expect(sorted(steps)).toEqual(
      sorted([
        ...MAIN_JOB,
        "tmux (for the shell tests)",
        "Xvfb (for the daemon's X11 tests)",
        "BusyBox (for the Modal entrypoint's tests)",
        "pip's wheel (for ComputerApp's requirements test)",
        "adb (for the phone harness's tests)",
        "aapt (for the phone's fixture app)",
        "zipalign (for the phone's fixture app)",
        "apksigner (for the phone's fixture app)",
        "framework-res.apk (for the phone's fixture app)",
        "the phone's fixture app (dist/phone-fixture)",
        "sshd (for the remote Docker engine's tests)",
        "registry (for the default image's pull tests)",
        "browser image (Chromium, for the browser fakes)",
        "gen-python-sdk (Pulumi's Python code generator)",
        "Docker Engine 28 (for the volume option's tests)",
      ]),
    );
    const wrong = await execa("bash", ["scripts/setup.sh", "--everything"], { cwd: ROOT, reject: false });
    expect([wrong.exitCode, String(wrong.stderr)]).toEqual([1, expect.stringContaining("usage: bash scripts/setup.sh [--tests]")]);
  }, 600_000);

  it("npm run setup on its own ends by saying what to run next", async () => {
    const run = await execa("npm", ["run", "--silent", "setup"], { cwd: ROOT, env: { AGENTRUN_SETUP_LOG: path.join(dir, "npm.log") }, reject: false });
    expect(run.exitCode, String(run.stderr)).toBe(0);
    expect(String(run.stderr).trim().split("\n").at(-1)).toBe(
      "[setup] next: `. dist/toolchain.env` puts this set-up's pulumi on your PATH; then `npm run up` makes the root stack's computers, or follow an example's README (examples/README.md lists them)",
    );
  }, 600_000);

  it("a failed step shows the end of the log and names it", async () => {
    const log = path.join(dir, "failed.log");
    const script = `. scripts/lib.sh; step "a failing step" sh -c 'echo chatter; echo the reason >&2; exit 3'`;
    const run = await execa("bash", ["-c", script], { cwd: ROOT, env: { AGENTRUN_SETUP_LOG: log }, reject: false });
    expect(run.exitCode).toBe(1);
    expect(String(run.stderr).split("\n")).toEqual([
      "[setup] a failing step … failed (exit 3) after 0 s",
      "  | ",
      expect.stringMatching(/^ {2}\| == a failing step \(\d\d:\d\d:\d\d\)$/),
      "  | chatter",
      "  | the reason",
      `[setup] error: a failing step failed; the lines above are the end of ${log}`,
    ]);
  });
});
