// What the agentrun command's tests share: the built bin run as a person runs it, and computers
// made with a label only this file's run carries, removed by their exact names when the file ends.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { execa } from "execa";
import { afterAll } from "vitest";
import type { ComputerSpec } from "../../src/contract/provider.js";
import { ROOT } from "./toolchain.js";
import { provider, spec, testLabel } from "./docker-helpers.js";

export const BIN = `${ROOT}/dist/src/cli/program.js`;

/** Runs `agentrun ...args`: the running command, whose end never throws on a nonzero exit. */
export function agentrun(args: string[], options: { timeoutMs?: number; cwd?: string; input?: string; env?: Record<string, string> } = {}) {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: run \`npm run setup\` (or \`npx tsc -p tsconfig.json\`) first`);
  return execa("node", [BIN, ...args], {
    reject: false,
    timeout: options.timeoutMs ?? 60_000,
    cwd: options.cwd ?? ROOT,
    ...(options.env ? { env: options.env } : {}),
    ...(options.input !== undefined ? { input: options.input } : { stdin: "ignore" as const }),
  });
}

/** A label of this file's run, and its computers, each removed by name after the file's tests. */
export function computers(): { label: Record<string, string>; make(extra?: Partial<ComputerSpec>): Promise<string> } {
  const label = testLabel();
  const names: string[] = [];
  afterAll(() => {
    // By exact name; one a test's sweep released already is gone, which is fine.
    for (const name of names) {
      try {
        execFileSync("docker", ["rm", "--force", "--volumes", name], { stdio: "ignore" });
      } catch {}
    }
  });
  return {
    label,
    async make(extra = {}) {
      const made = await provider().create(spec({ ...extra, labels: { ...label, ...(extra.labels ?? {}) } }));
      if (!made.ok) throw new Error(`the test's computer could not be made: ${made.error.message}`);
      names.push(made.value.name);
      return made.value.name;
    },
  };
}

/** `--label k=v` flags for the label. */
export const labelFlags = (label: Record<string, string>) => Object.entries(label).flatMap(([k, v]) => ["--label", `${k}=${v}`]);
