// README.md's "A YAML fleet", typed by hand into a new folder as a reader would: the block taken
// from the README itself (so the README cannot drift from what is tested), with the plugin's path
// for "./provider/bin" (its comment says so: from elsewhere, its path). It comes up through the
// CLI's up (which previews first: the Mount's folder is not there yet, the claim's labels not
// known) and goes down, leaving no computer and not the folder it made.
// One change beyond the path: the claim's run, r1 as written, is this test's own, since a claim
// releases its run's other computers and examples/fleet claims r1 on the same engine, perhaps
// in the same test run. The size (10) and everything else are as written.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { exists, isRunning, removeContainers } from "../support/docker.js";
import { pulumiEnv } from "../support/stack.js";
import { ROOT, toolchain } from "../support/toolchain.js";

/** The YAML block under a heading of README.md. */
async function readmeBlock(heading: string): Promise<string> {
  const text = await readFile(join(ROOT, "README.md"), "utf8");
  const section = text.slice(text.indexOf(`## ${heading}\n`));
  const block = /```yaml\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error(`README.md has no yaml block under "## ${heading}"`);
  return block;
}

/** Replaces one line's match, or throws: the README must still say it. */
function replaced(text: string, pattern: RegExp, by: string): string {
  if (!pattern.test(text)) throw new Error(`the README's block no longer matches ${pattern}`);
  return text.replace(pattern, by);
}

describe('README.md\'s "A YAML fleet", typed into a new folder', () => {
  const run = `e2e-readme-${randomBytes(4).toString("hex")}`;
  const made = new Set<string>();
  let dir: string;
  let env: Record<string, string>;
  let folder: string;
  let folderThere: boolean;
  const pulumi = (...args: string[]) =>
    execa(`${toolchain().pulumiBin}/pulumi`, [...args, "--non-interactive"], { cwd: join(dir, "my-fleet"), env, reject: false });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "agentrun-readme-fleet-"));
    env = pulumiEnv(join(dir, "state"), join(dir, "home"));
    for (const sub of ["state", "home", "my-fleet"]) await mkdir(join(dir, sub));
    let program = await readmeBlock("A YAML fleet");
    program = replaced(program, /path: \.\/provider\/bin\b.*$/m, `path: ${ROOT}/provider/bin`);
    program = replaced(program, /\{ run: r1, epoch: 1 \}/, `{ run: ${run}, epoch: 1 }`);
    folder = /path: (\/var\/tmp\/\S+)/.exec(program)![1]!;
    folderThere = existsSync(folder);
    await writeFile(join(dir, "my-fleet", "Pulumi.yaml"), program);
    expect((await pulumi("stack", "init", "dev")).exitCode).toBe(0);
  }, 120_000);

  afterAll(async () => {
    try {
      await pulumi("destroy", "--yes");
    } finally {
      await removeContainers(made);
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);

  test("comes up as written (ten computers on the run's folder, none drifted) and goes down leaving nothing", async () => {
    const up = await pulumi("up", "--yes");
    for (const name of String(up.stdout).match(/computer-[0-9a-f]{12}/g) ?? []) made.add(name);
    expect(up.exitCode, `${up.stdout}\n${up.stderr}`).toBe(0);
    const outputs = JSON.parse(String((await pulumi("stack", "output", "--json")).stdout)) as { computers: string[]; drift: unknown };
    for (const name of outputs.computers) made.add(name);
    expect(outputs.computers).toHaveLength(10);
    // The drift found before this up: none, on a fleet made from nothing.
    expect(outputs.drift).toEqual({ count: 0, computers: [], gone: [] });
    for (const name of outputs.computers) expect(await isRunning(name), name).toBe(true);
    expect((await stat(folder)).mode & 0o7777).toBe(0o700);

    const down = await pulumi("destroy", "--yes");
    expect(down.exitCode, `${down.stdout}\n${down.stderr}`).toBe(0);
    for (const name of outputs.computers) expect(await exists(name), name).toBe(false);
    // The Mount removes the folder it made; one that was there before is the user's.
    expect(existsSync(folder)).toBe(folderThere);
  }, 600_000);
});
