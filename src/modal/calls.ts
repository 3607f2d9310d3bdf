// Every Modal call bounded: the SDK takes no AbortSignal, so each call races its bound and the
// caller's signal, and a result that lands after is handed to late() (a sandbox to terminate).
import { errorWords } from "../vendor/redact.js";
import { fail, ok, type Result, type ResultCode } from "../vendor/result.js";

/** An SDK error as a result's code: NotFoundError is not_found, and the rest by name. */
export function codeOf(error: unknown): ResultCode {
  const name = error instanceof Error ? error.name : "";
  if (name === "NotFoundError") return "not_found";
  if (name === "InvalidError") return "invalid";
  if (name === "ConflictError") return "gone";
  if (name === "AlreadyExistsError") return "exists";
  if (name === "TimeoutError") return "timeout";
  if (name === "ResourceExhaustedError") return "limit";
  if (/unauthenticated|permission denied|token/i.test(error instanceof Error ? error.message : "")) return "unauthorized";
  if (name === "ClientClosedError" || /UNAVAILABLE|ECONNREFUSED|ENOTFOUND|ETIMEDOUT/i.test(String(error))) return "unreachable";
  return "failed";
}

/** An SDK error in words with anything key-shaped taken out. */
export const wordsOf = errorWords;

export interface Bound<T> {
  /** The call in words, for the refusal ("sandboxes.create"). */
  what: string;
  ms: number;
  signal?: AbortSignal | undefined;
  /** A value that lands after the call was given up on. */
  late?: (value: T) => void;
}

/** The call's value, or a timeout, an abort or the SDK's error as a result; never a throw. */
export async function bounded<T>(call: () => Promise<T>, bound: Bound<T>): Promise<Result<T>> {
  const { what, ms, signal } = bound;
  if (signal?.aborted) return fail("aborted", `${what} was aborted before it was sent`);
  let answered = false;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const running = (async () => call())();
  const answer = running.then(
    (value): Result<T> => ((answered = true), ok(value)),
    (error: unknown): Result<T> => ((answered = true), fail(codeOf(error), `${what}: ${wordsOf(error)}`)),
  );
  const stop = new Promise<Result<T>>((resolve) => {
    timer = setTimeout(() => resolve(fail("timeout", `${what} did not answer within ${ms / 1000} s`)), ms);
    onAbort = () => resolve(fail("aborted", `${what} was aborted`));
    signal?.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([answer, stop]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
    // Given up on: what lands later is handed over, never left (a sandbox is terminated).
    if (!answered && bound.late) running.then(bound.late, () => undefined);
  }
}
