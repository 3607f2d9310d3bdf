// What the fault tests share: the containers carrying a test's own label, a named wait, and a
// stack's end that leaves none of them.
import { docker } from "./docker.js";
import type { TestStack } from "./stack.js";

export type Listed = { name: string; id: string; running: boolean };

/** Containers carrying agentrun.test=<run>, any state, on the shared engine or the one given. */
export async function labelled(run: string, cli: (...args: string[]) => Promise<{ stdout: string }> = docker): Promise<Listed[]> {
  const r = await cli("ps", "--all", "--no-trunc", "--filter", `label=agentrun.test=${run}`, "--format", "{{.Names}} {{.ID}} {{.State}}");
  return r.stdout
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const [name = "", id = "", state = ""] = line.split(" ");
      return { name, id, running: state === "running" };
    });
}

/** Polls until the probe gives a value; throws naming what it waited for. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 240_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`waited ${ms / 1000} s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** A stack's destroy and removal, then every container left with the run's label removed by exact name, pass or fail. */
export async function disposeAll(s: TestStack | undefined, run: string): Promise<void> {
  try {
    await s?.dispose();
  } finally {
    const left = (await labelled(run)).map((c) => c.name);
    if (left.length) await docker("rm", "--force", "--volumes", ...left);
  }
}
