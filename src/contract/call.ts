// Every vendor SDK call bounded, one helper for every vendor: the call is given one signal, its own
// bound joined with the caller's, and is raced against it too, so a call that ignores the signal
// (Modal's SDK takes none) still ends; a value that lands after the call was given up on is
// handed to late() (a sandbox to kill). The vendor gives its SDK's error-to-code mapping.
import { boundedBy } from "../daemon/bound.js";
import { errorWords } from "../daemon/redact.js";
import { fail, ok, type Result, type ResultCode } from "../daemon/result.js";

/** A vendor SDK's error as a result's code (by the error's name: no SDK class is loaded). */
export type CodeOf = (error: unknown) => ResultCode;

export interface Bound<T> {
  /** The call in words, for the refusal ("Sandbox.getInfo of <id>", "sandboxes.create"). */
  what: string;
  ms: number;
  signal?: AbortSignal | undefined;
  /** A value that lands after the call was given up on. */
  late?: (value: T) => void;
}

/** The call's value, or a timeout, an abort or the SDK's error (coded by codeOf) as a result; never a throw. */
export async function boundedCall<T>(run: (signal: AbortSignal, ms: number) => Promise<T>, bound: Bound<T>, codeOf: CodeOf): Promise<Result<T>> {
  const { what, ms, signal: caller } = bound;
  if (caller?.aborted) return fail("aborted", `${what} was aborted before it was sent`);
  const { bound: timer, signal } = boundedBy(ms, caller);
  let answered = false;
  const running = (async () => run(signal, ms))();
  const answer = running.then(
    (value): Result<T> => ((answered = true), ok(value)),
    (error: unknown): Result<T> => ((answered = true), fail(codeOf(error), `${what}: ${errorWords(error)}`)),
  );
  let onAbort: (() => void) | undefined;
  const stop = new Promise<Result<T>>((resolve) => {
    onAbort = () => resolve(caller?.aborted ? fail("aborted", `${what} was aborted`) : fail("timeout", `${what} did not answer within ${ms / 1000} s`));
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const result = await Promise.race([answer, stop]);
    // An SDK that turns the abort into its own error still reads as the abort or the bound.
    if (!result.ok && signal.aborted && result.error.code !== "aborted" && result.error.code !== "timeout") {
      return caller?.aborted
        ? fail("aborted", `${what} was aborted`)
        : timer.aborted
          ? fail("timeout", `${what} did not answer within ${ms / 1000} s`)
          : result;
    }
    return result;
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
    // Given up on: what lands later is handed over, never left (a sandbox is killed).
    if (!answered && bound.late) running.then(bound.late, () => undefined);
  }
}
