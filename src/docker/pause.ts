// The fault tests' seam (a plugin setting refused unless the plugin's test flag is on): a create,
// a pause or a snapshot's take that reaches the named step writes this process's id to a file and
// waits there, so a test can kill the process at exactly that step, cancel the operation there (the
// wait ends with its signal), or do something under it (restart the engine) and then let it go on by
// removing the file. It waits at most two minutes, so nothing hangs for ever.
import { access, writeFile } from "node:fs/promises";

export const CREATE_STEPS = ["before-run", "after-run", "hello"] as const;
/** before-run: all checked, no container yet; after-run: the container made and started; hello: the daemon answered, the drift check not yet run. */
export type CreateStep = (typeof CREATE_STEPS)[number];

export const STATE_STEPS = ["pausing", "paused", "committed", "loaded"] as const;
/**
 * pausing: a computer about to be paused (read running, the engine not yet asked); paused: the
 * engine paused it, not yet answered; committed: a take's commit made (its part image), the
 * snapshot not yet loaded; loaded: the snapshot's image loaded, not yet answered.
 */
export type StateStep = (typeof STATE_STEPS)[number];
export type Step = CreateStep | StateStep;

const WAIT_MS = 120_000;
const POLL_MS = 200;

export function pauseAt(at: Step, file: string): (step: Step, signal?: AbortSignal) => Promise<void> {
  return async (step, signal) => {
    if (step !== at) return;
    await writeFile(file, `${process.pid}\n`);
    const end = Date.now() + WAIT_MS;
    while (
      Date.now() < end &&
      !signal?.aborted &&
      (await access(file).then(
        () => true,
        () => false,
      ))
    )
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  };
}
