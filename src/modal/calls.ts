// Modal's calls through the one bounded-call helper (src/contract/call.ts), with Modal's errors as
// codes. The SDK takes no AbortSignal, so each call is raced against its bound and the caller's
// signal, and a result that lands after is handed to late() (a sandbox to terminate).
import { type Bound, boundedCall } from "../contract/call.js";
import { errorWords } from "../contract/redact.js";
import type { Result, ResultCode } from "../contract/result.js";

export type { Bound };

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

/** One Modal call (which takes no signal) raced against its bound and the caller's signal; never a throw. */
export function bounded<T>(call: () => Promise<T>, bound: Bound<T>): Promise<Result<T>> {
  return boundedCall(() => call(), bound, codeOf);
}
