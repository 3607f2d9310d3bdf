// An example's README followed literally: its sh block run line by line in bash, from a copy of
// the repository's layout (the example's folder beside links to dist/, provider/, package.json
// and node_modules/), so what the README writes (.pulumi/, the stack's settings) never lands in
// the work tree. `followedAsWritten` is the test every README gets: each line exits 0, then the
// example's own checks, and whatever a stack still holds is destroyed, pass or fail.
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, test } from "vitest";
import { docker } from "./docker.js";
import { homeEnv } from "./stack.js";
import { ROOT } from "./toolchain.js";

// The layout a fresh clone has beside an example, linked into the copy.
const LINKED = ["dist", "provider", "package.json", "node_modules"];

/** The README's first sh block, as its lines. */
export async function readmeSteps(example: string): Promise<string[]> {
  const text = await readFile(join(ROOT, "examples", example, "README.md"), "utf8");
  const block = /```sh\n([\s\S]*?)```/.exec(text)?.[1];
  if (block === undefined) throw new Error(`examples/${example}/README.md has no sh block`);
  return block.split("\n").filter((l) => l.trim() !== "");
}

export interface FollowOptions {
  /** The reader's environment beyond a Pulumi home of its own (a key the README reads from a variable). */
  env?: Record<string, string>;
  /** "root": the lines run from the repository's root (a TypeScript example, which imports this package by name). */
  at?: "copy" | "root";
  /** The first line not run, and every line after it: a vendor's example runs here up to its `pulumi up`. */
  until?: RegExp;
}

export interface Followed {
  root: string;
  steps: string[];
  /** The shell's run: stdout, stderr (with each step's mark) and both interleaved. */
  ran: { stdout: string; stderr: string; all: string };
  teardown(): Promise<void>;
}

/**
 * Runs the steps in bash from a fresh copy of the layout, skipping `npm run setup` (the test's
 * set-up has run it), with a Pulumi home of its own. Each step's exit code and output.
 */
export async function followReadme(example: string, options: FollowOptions = {}): Promise<Followed> {
  const { env = {}, at = "copy", until } = options;
  const root = await mkdtemp(join(tmpdir(), `agentrun-readme-${example}-`));
  if (at === "copy") {
    await mkdir(join(root, "examples"));
    await cp(join(ROOT, "examples", example), join(root, "examples", example), { recursive: true });
    for (const name of LINKED) await symlink(join(ROOT, name), join(root, name));
  }
  const all = (await readmeSteps(example)).filter((l) => !/^npm run setup\b/.test(l));
  const stop = until ? all.findIndex((l) => until.test(l)) : -1;
  const steps = stop < 0 ? all : all.slice(0, stop);
  // One shell for every line, as a reader's terminal is; each line's exit code marked after it.
  const script = steps.map((line, n) => `${line}\necho "::step ${n} $?" >&2`).join("\n");
  const shellEnv = { ...homeEnv(join(root, "home")), ...env };
  const ran = await execa("bash", ["-c", script], { cwd: at === "copy" ? root : ROOT, env: shellEnv, reject: false, all: true });
  // Whatever a step that failed left: every stack of the example's backend destroyed, as the README's own lines would.
  const teardown = async () => {
    const folder = join(root, "examples", example);
    if (existsSync(join(folder, ".pulumi"))) await destroyEvery(folder, shellEnv);
    await rm(root, { recursive: true, force: true });
  };
  return { root, steps, ran, teardown };
}

/** Every stack of each project in the example's folder (itself and its subfolders), destroyed on the folder's backend. */
async function destroyEvery(folder: string, env: Record<string, string>): Promise<void> {
  const projects = [folder, ...(await readdir(folder, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => join(folder, d.name))];
  const pulumi = `. ${ROOT}/dist/toolchain.env && export PULUMI_BACKEND_URL=file://${folder}/.pulumi PULUMI_CONFIG_PASSPHRASE=local && pulumi --non-interactive`;
  for (const project of projects.filter((p) => existsSync(join(p, "Pulumi.yaml")))) {
    const listed = await execa("bash", ["-c", `${pulumi} stack ls --json`], { cwd: project, env, reject: false });
    const stacks = listed.exitCode === 0 ? (JSON.parse(listed.stdout) as Array<{ name: string }>).map((s) => s.name) : [];
    for (const stack of stacks) await execa("bash", ["-c", `${pulumi} destroy --yes --stack ${stack}`], { cwd: project, env, reject: false });
  }
}

/** Each step's line and exit code, as the run marked them. */
export function stepCodes(followed: Pick<Followed, "steps" | "ran">): Array<[string, number]> {
  return [...followed.ran.stderr.matchAll(/^::step (\d+) (\d+)$/gm)].map((m) => [followed.steps[Number(m[1])]!, Number(m[2])]);
}

/** Every computer a run's output names, once each. */
export function computersNamed(output: string): string[] {
  return [...new Set(output.match(/computer-[0-9a-f]{12}/g) ?? [])];
}

/** That none of these containers is there any more. */
export async function expectGone(names: readonly string[]): Promise<void> {
  expect(names.length, "the README's output names no computer").toBeGreaterThan(0);
  for (const name of names) expect((await docker("inspect", name)).exitCode, `${name} is still there`).not.toBe(0);
}

export interface AsWritten extends FollowOptions {
  /** Run after the stacks' teardown, pass or fail (a folder the example keeps on purpose). */
  after?: () => Promise<void>;
  timeoutMs?: number;
}

/**
 * The test of one README: followed as written, every line exits 0 (a line expecting another code
 * says so with `test $? -eq N`), then the example's own checks of what it printed and left.
 */
export function followedAsWritten(example: string, what: string, checks: (followed: Followed) => Promise<void> | void, options: AsWritten = {}): void {
  const { after, timeoutMs = 600_000, ...follow } = options;
  describe(`examples/${example} as its README says`, () => {
    let teardown: (() => Promise<void>) | undefined;

    afterAll(async () => {
      try {
        await teardown?.();
      } finally {
        await after?.();
      }
    }, 300_000);

    test(
      `every line exits 0: ${what}`,
      async () => {
        const followed = await followReadme(example, follow);
        teardown = followed.teardown;
        expect(stepCodes(followed), followed.ran.all).toEqual(followed.steps.map((s) => [s, 0]));
        await checks(followed);
      },
      timeoutMs,
    );
  });
}
