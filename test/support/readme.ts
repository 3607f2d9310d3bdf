// An example's README followed literally: its sh block run line by line in bash, from a copy of
// the repository's layout (the example's folder beside links to dist/ and provider/), so what the
// README writes (.pulumi/, the stack's settings) never lands in the work tree.
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { homeEnv } from "./stack.js";
import { ROOT } from "./toolchain.js";

/** The README's first sh block, as its lines. */
export async function readmeSteps(example: string): Promise<string[]> {
  const text = await readFile(join(ROOT, "examples", example, "README.md"), "utf8");
  const block = /```sh\n([\s\S]*?)```/.exec(text)?.[1];
  if (block === undefined) throw new Error(`examples/${example}/README.md has no sh block`);
  return block.split("\n").filter((l) => l.trim() !== "");
}

/**
 * Runs the steps in bash from a fresh copy of the layout, stopping at the first that fails, and
 * skipping `npm run setup` (the test's set-up has run it), with a Pulumi home of its own. Each
 * step's exit code and output.
 */
export async function followReadme(example: string, env: Record<string, string> = {}, at: "copy" | "root" = "copy") {
  const root = await mkdtemp(join(tmpdir(), `agentrun-readme-${example}-`));
  if (at === "copy") {
    await mkdir(join(root, "examples"));
    await cp(join(ROOT, "examples", example), join(root, "examples", example), { recursive: true });
    await symlink(join(ROOT, "dist"), join(root, "dist"));
    await symlink(join(ROOT, "provider"), join(root, "provider"));
  }
  const steps = (await readmeSteps(example)).filter((l) => !/^npm run setup\b/.test(l));
  // One shell for every line, as a reader's terminal is; each line's exit code marked after it.
  const script = steps.map((line, n) => `${line}\necho "::step ${n} $?" >&2`).join("\n");
  const shellEnv = { ...homeEnv(join(root, "home")), ...env };
  // A README whose lines run from the repository's root (a TypeScript example, which imports this package by name) runs there.
  const ran = await execa("bash", ["-c", script], { cwd: at === "copy" ? root : ROOT, env: shellEnv, reject: false, all: true });
  // Whatever a step that failed left: the stack destroyed as the README's own lines would.
  const teardown = async () => {
    const folder = join(root, "examples", example);
    const again = `. ../../dist/toolchain.env && export PULUMI_BACKEND_URL=file://$PWD/.pulumi PULUMI_CONFIG_PASSPHRASE=local && pulumi destroy --yes --non-interactive --stack dev`;
    if (existsSync(join(folder, ".pulumi"))) await execa("bash", ["-c", again], { cwd: folder, env: shellEnv, reject: false });
    await rm(root, { recursive: true, force: true });
  };
  return { root, steps, ran, teardown };
}

/** Each step's line and exit code, as the run marked them. */
export function stepCodes(followed: { steps: string[]; ran: { stderr: string } }): Array<[string, number]> {
  return [...followed.ran.stderr.matchAll(/^::step (\d+) (\d+)$/gm)].map((m) => [followed.steps[Number(m[1])]!, Number(m[2])]);
}
