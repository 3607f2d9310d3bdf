// Example READMEs followed literally, each from a fresh copy of the repository's layout to its
// teardown: every line exits as the README says (0), and what it leaves is what it says it leaves.
import { rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { docker, egressParts } from "../support/docker.js";
import { followReadme, stepCodes } from "../support/readme.js";

describe("examples/run-folder as its README says", () => {
  const FOLDER = "/var/tmp/agentrun/examples/runs/r1/work";
  let teardown: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await teardown?.();
    await rm(FOLDER, { recursive: true, force: true });
  }, 120_000);

  test("every line exits 0, and the folder is kept after destroy, 1000:1000 and 0700", async () => {
    const followed = await followReadme("run-folder");
    teardown = followed.teardown;
    expect(stepCodes(followed), followed.ran.all).toEqual(followed.steps.map((s) => [s, 0]));
    const st = await stat(FOLDER);
    expect([st.uid, st.gid, st.mode & 0o7777]).toEqual([1000, 1000, 0o700]);
  }, 300_000);
});

describe("examples/fleet as its README says", () => {
  let teardown: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await teardown?.();
  }, 300_000);

  test("every line exits 0: up, a clean preview, a new epoch, destroy and the stack removed", async () => {
    const followed = await followReadme("fleet");
    teardown = followed.teardown;
    expect(stepCodes(followed), followed.ran.all).toEqual(followed.steps.map((s) => [s, 0]));
  }, 600_000);
});

describe("examples/automation as its README says", () => {
  const state = join(tmpdir(), `agentrun-readme-automation-${process.pid}`);
  let teardown: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await teardown?.();
    await rm(state, { recursive: true, force: true });
  }, 300_000);

  test("every line exits 0: compiled, five computers each ran the command, and none is left", async () => {
    const followed = await followReadme("automation", { STATE: state }, "root");
    teardown = followed.teardown;
    expect(stepCodes(followed), followed.ran.all).toEqual(followed.steps.map((s) => [s, 0]));
    const lines = followed.ran.stdout.split("\n").filter((l) => / exited /.test(l));
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).toMatch(/^computer-[0-9a-f]{12} exited 0: Linux /);
    const names = lines.map((l) => l.split(" ")[0]!);
    for (const name of names) expect((await docker("inspect", name)).exitCode).not.toBe(0);
  }, 600_000);
});

describe("examples/allowlist as its README says", () => {
  let teardown: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await teardown?.();
  }, 300_000);

  test("every line exits 0: the proxy and its computers, a clean preview, the list narrowed as an update of the proxy alone, nothing left", async () => {
    const followed = await followReadme("allowlist");
    teardown = followed.teardown;
    expect(stepCodes(followed), followed.ran.all).toEqual(followed.steps.map((s) => [s, 0]));
    expect(followed.ran.stdout).toMatch(/agentrun:index:EgressProxy\s+pypi\s+updated/);
    // The computers were made once, by the first up, and never again.
    expect(followed.ran.stdout.match(/agentrun:index:Computer\s+builder\s+created/g)).toHaveLength(1);
    expect(followed.ran.stdout).not.toMatch(/agentrun:index:Computer\s+(builder|tester)\s+replaced/);
    const proxy = /proxy\s*:\s*"(proxy-[0-9a-f]{12})"/.exec(followed.ran.stdout)?.[1];
    expect(proxy, followed.ran.stdout).toBeDefined();
    expect(await egressParts(proxy!)).toEqual({ containers: "", volumes: "" });
  }, 600_000);
});

describe("examples/drift-check as its README says", () => {
  let teardown: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await teardown?.();
  }, 300_000);

  test("every line exits as it says: 0 as declared, 7 once stopped by hand naming state, 0 after up --refresh", async () => {
    const followed = await followReadme("drift-check");
    teardown = followed.teardown;
    expect(stepCodes(followed), followed.ran.all).toEqual(followed.steps.map((s) => [s, 0]));
    expect(followed.ran.stdout).toMatch(/\[diff: ~state\]/);
    expect(followed.ran.stderr).toMatch(/drift check: the stack dev has drifted/);
    const name = /computer-[0-9a-f]{12}/.exec(followed.ran.stdout)?.[0];
    expect(name, followed.ran.stdout).toBeDefined();
    expect((await docker("inspect", name!)).exitCode).not.toBe(0);
  }, 600_000);
});

describe("examples/desktop as its README says", () => {
  let teardown: (() => Promise<void>) | undefined;

  afterAll(async () => {
    await teardown?.();
  }, 300_000);

  test("every line exits 0: a desktop of 1280x800, as declared, then nothing left", async () => {
    const followed = await followReadme("desktop");
    teardown = followed.teardown;
    expect(stepCodes(followed), followed.ran.all).toEqual(followed.steps.map((s) => [s, 0]));
    expect(followed.ran.stdout).toMatch(/\{"height":800,"width":1280\}/);
    const name = /computer-[0-9a-f]{12}/.exec(followed.ran.stdout)?.[0];
    expect(name, followed.ran.stdout).toBeDefined();
    expect((await docker("inspect", name!)).exitCode).not.toBe(0);
  }, 600_000);
});
