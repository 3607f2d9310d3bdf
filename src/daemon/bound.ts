// A vendor call's signal: a bound of its own joined with the caller's, kept apart so a refusal
// can tell the call's timeout from the caller's abort; and a caller's wait on work others share.

export interface Bounded {
  /** Aborts at the bound alone: when it has, the call timed out. */
  bound: AbortSignal;
  /** Aborts at the bound or with the caller's signal: the one the call is given. */
  signal: AbortSignal;
}

export function boundedBy(ms: number, caller?: AbortSignal): Bounded {
  const bound = AbortSignal.timeout(ms);
  return { bound, signal: caller ? AbortSignal.any([caller, bound]) : bound };
}

/**
 * Work others share, as one caller waits for it: the caller's abort ends its own wait (with
 * aborted()), never the work.
 */
export function untilAborted<T>(shared: Promise<T>, signal: AbortSignal | undefined, aborted: () => T): Promise<T> {
  if (!signal) return shared;
  if (signal.aborted) return Promise.resolve(aborted());
  return new Promise((resolve) => {
    const onAbort = () => resolve(aborted());
    signal.addEventListener("abort", onAbort, { once: true });
    void shared.then((value) => {
      signal.removeEventListener("abort", onAbort);
      resolve(value);
    });
  });
}
