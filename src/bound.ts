// A vendor call's signal: a bound of its own joined with the caller's, kept apart so a refusal
// can tell the call's timeout from the caller's abort.

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
