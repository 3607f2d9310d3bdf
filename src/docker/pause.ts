// The fault tests' seam (a plugin setting refused unless the plugin's test flag is on): a create
// that reaches the named step writes this process's id to a file and waits there, so a test can
// kill the process at exactly that step, or cancel the operation there (the wait ends with the
// create's signal). It waits at most two minutes, so nothing hangs for ever.
import { writeFile } from "node:fs/promises";

export const CREATE_STEPS = ["before-run", "after-run", "hello"] as const;
/** before-run: all checked, no container yet; after-run: the container made and started; hello: the daemon answered, the drift check not yet run. */
export type CreateStep = (typeof CREATE_STEPS)[number];

const WAIT_MS = 120_000;

export function pauseAt(at: CreateStep, file: string): (step: CreateStep, signal?: AbortSignal) => Promise<void> {
  return async (step, signal) => {
    if (step !== at) return;
    await writeFile(file, `${process.pid}\n`);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, WAIT_MS);
      signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
    });
  };
}
