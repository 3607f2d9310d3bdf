// waitUntil: the one bounded wait for a vendor that reads a state back later than it acted.
import { redactWords } from "../daemon/redact.js";
import { fail, ok, type Result } from "../daemon/result.js";

export interface WaitOptions<T> {
  /** The whole wait's bound. */
  boundMs: number;
  signal?: AbortSignal;
  /** The first pause (250 ms); each doubles, up to maxMs (5 s). */
  minMs?: number;
  maxMs?: number;
  /** What is waited for, in words ("the sandbox to finish"). */
  what?: string;
  /** A state in words, for the refusal. */
  describe?: (state: T) => string;
}

type Outcome<T> = { state: T } | { error: unknown } | undefined;

/**
 * Reads at once, then after pauses that double from minMs to maxMs, never past boundMs, and
 * returns the first state done accepts. Each read gets a signal that aborts at the bound or on
 * the caller's abort; a read still pending then is not waited for, and one that throws is not done.
 */
export async function waitUntil<T>(read: (signal: AbortSignal) => Promise<T>, done: (state: T) => boolean, options: WaitOptions<T>): Promise<Result<T>> {
  const { boundMs, signal, minMs = 250, maxMs = 5000, what = "the state", describe = (s: T) => JSON.stringify(s) } = options;
  const bad = [
    ["boundMs", boundMs],
    ["minMs", minMs],
    ["maxMs", maxMs],
  ].find(([, v]) => typeof v !== "number" || !Number.isFinite(v) || (v as number) < 0);
  if (bad) return fail("invalid", `waitUntil: ${bad[0]} is a number of milliseconds, 0 or more`);
  if (signal?.aborted) return fail("aborted", `the wait for ${what} was aborted before its first read`);

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new Error(`the wait for ${what} passed its bound`));
  }, boundMs);
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener("abort", onAbort, { once: true });
  const stopped = new Promise<undefined>((resolve) => controller.signal.addEventListener("abort", () => resolve(undefined), { once: true }));
  const deadline = Date.now() + boundMs;
  let last: Outcome<T>;
  let pause = minMs;
  try {
    for (;;) {
      const outcome: Outcome<T> = await Promise.race([
        read(controller.signal).then(
          (state) => ({ state }),
          (error: unknown) => ({ error }),
        ),
        stopped,
      ]);
      if (outcome === undefined) break;
      last = outcome;
      if ("state" in outcome && done(outcome.state)) return ok(outcome.state);
      const remaining = deadline - Date.now();
      if (remaining <= 0 || controller.signal.aborted) break;
      await Promise.race([new Promise((resolve) => setTimeout(resolve, Math.min(pause, remaining))), stopped]);
      if (controller.signal.aborted) break;
      pause = Math.min(pause * 2, maxMs);
    }
    const lastRead =
      last === undefined
        ? "no read came back"
        : "state" in last
          ? `it last read ${describe(last.state)}`
          : `its last read failed: ${redactWords(last.error instanceof Error ? last.error.message : String(last.error))}`;
    if (signal?.aborted) return fail("aborted", `the wait for ${what} was aborted; ${lastRead}`);
    if (timedOut || Date.now() >= deadline) return fail("timeout", `${what} did not come within ${boundMs} ms; ${lastRead}`);
    return fail("aborted", `the wait for ${what} was aborted; ${lastRead}`);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
  }
}
