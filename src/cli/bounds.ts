// Every vendor call the command makes is bounded and stops on ^C: one signal per call.
import { boundedBy } from "../daemon/bound.js";

/** How long a list, an attach or a connect may take before the command gives up on it. */
export const CALL_BOUND_MS = 60_000;

/** The caller's signal (^C) joined with a bound of its own. */
export function bounded(signal: AbortSignal, ms: number = CALL_BOUND_MS): AbortSignal {
  return boundedBy(ms, signal).signal;
}
