// E2B's calls through the one bounded-call helper (src/contract/call.ts), with E2B's errors as codes.
import { type Bound, boundedCall } from "../contract/call.js";
import { errorWords } from "../daemon/redact.js";
import type { Result, ResultCode } from "../daemon/result.js";

export type { Bound };

/** An SDK error as a result's code, by the error's name (no SDK class is loaded). */
export function codeOf(error: unknown): ResultCode {
  const name = error instanceof Error ? error.name : "";
  if (name === "SandboxNotFoundError" || name === "NotFoundError") return "not_found";
  if (name === "AuthenticationError") return "unauthorized";
  if (name === "TimeoutError") return "timeout";
  if (name === "RateLimitError") return "limit";
  if (name === "InvalidArgumentError") return "invalid";
  // Any other answer of E2B's API is the SDK's SandboxError "<status>: <message>" with its statusCode (a create of a template E2B does not have is a 400).
  const status = name === "SandboxError" ? (error as { statusCode?: unknown }).statusCode : undefined;
  if (status === 400) return "invalid";
  if (status === 404) return "not_found";
  if (/ECONNREFUSED|ENOTFOUND|ETIMEDOUT|EAI_AGAIN|fetch failed/i.test(String(error))) return "unreachable";
  return "failed";
}

/** An SDK error in words with anything key-shaped taken out. */
export const wordsOf = errorWords;

/** One E2B call, given its signal and bound; never a throw. */
export function call<T>(run: (signal: AbortSignal, ms: number) => Promise<T>, bound: Bound<T>): Promise<Result<T>> {
  return boundedCall(run, bound, codeOf);
}
