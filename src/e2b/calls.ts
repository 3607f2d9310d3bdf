// Every E2B call bounded: it is given one signal, its own bound joined with the caller's, and is
// raced against it too, so a call that ignores the signal still ends; a value that lands after
// the call was given up on is handed to late() (a sandbox to kill).
import { boundedBy } from "../vendor/bound.js";
import { errorWords } from "../vendor/redact.js";
import { fail, ok, type Result, type ResultCode } from "../vendor/result.js";

/** An SDK error as a result's code, by the error's name (no SDK class is loaded). */
export function codeOf(error: unknown): ResultCode {
  const name = error instanceof Error ? error.name : "";
  if (name === "SandboxNotFoundError" || name === "NotFoundError") return "not_found";
  if (name === "AuthenticationError") return "unauthorized";
  if (name === "TimeoutError") return "timeout";
  if (name === "RateLimitError") return "limit";
  if (name === "InvalidArgumentError") return "invalid";
  if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|fetch failed/i.test(String(error))) return "unreachable";
  return "failed";
}

/** An SDK error in words with anything key-shaped taken out. */
export const wordsOf = errorWords;

export interface Bound<T> {
  /** The call in words ("Sandbox.getInfo of <id>"). */
  what: string;
  ms: number;
  signal?: AbortSignal | undefined;
  late?: (value: T) => void;
}

/** The call's value, or a timeout, an abort or the SDK's error as a result; never a throw. */
export async function call<T>(run: (signal: AbortSignal, ms: number) => Promise<T>, bound: Bound<T>): Promise<Result<T>> {
  const { what, ms, signal: caller } = bound;
  if (caller?.aborted) return fail("aborted", `${what} was aborted before it was sent`);
  const { bound: timer, signal } = boundedBy(ms, caller);
  let answered = false;
  const running = (async () => run(signal, ms))();
  const answer = running.then(
    (value): Result<T> => ((answered = true), ok(value)),
    (error: unknown): Result<T> => ((answered = true), fail(codeOf(error), `${what}: ${wordsOf(error)}`)),
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
    if (!answered && bound.late) running.then(bound.late, () => undefined);
  }
}
