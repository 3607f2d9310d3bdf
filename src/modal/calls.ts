// Modal's calls through the one bounded-call helper (src/contract/call.ts), with Modal's errors as
// codes. The SDK takes no AbortSignal, so each call is raced against its bound and the caller's
// signal, and a result that lands after is handed to late() (a sandbox to terminate).
import { type Bound, boundedCall } from "../contract/call.js";
import { errorWords } from "../daemon/redact.js";
import type { Result, ResultCode } from "../daemon/result.js";

export type { Bound };

/**
 * The gRPC statuses the SDK passes on unnamed (nice-grpc's ClientError, its numeric code): most
 * control-plane refusals, a 429 (RESOURCE_EXHAUSTED) and a 5xx among them, reach the caller so.
 */
const GRPC_CODES: Partial<Record<number, ResultCode>> = {
  3: "invalid", // INVALID_ARGUMENT
  4: "timeout", // DEADLINE_EXCEEDED
  5: "not_found", // NOT_FOUND
  6: "exists", // ALREADY_EXISTS
  7: "unauthorized", // PERMISSION_DENIED
  8: "limit", // RESOURCE_EXHAUSTED
  14: "unreachable", // UNAVAILABLE
  16: "unauthorized", // UNAUTHENTICATED
};

/** An SDK error as a result's code: its named errors by name, a gRPC status by its code, and the rest by their words. */
export function codeOf(error: unknown): ResultCode {
  const name = error instanceof Error ? error.name : "";
  if (name === "ClientError") {
    const code = GRPC_CODES[(error as { code?: unknown }).code as number];
    if (code) return code;
  }
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
