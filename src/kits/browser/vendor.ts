// What a browser vendor gives the one browser provider (provider.ts): its few calls, each one
// request bounded by the vendor (its own bound, under the caller's signal), each a Result. A failure names the call and the HTTP status alone, never the vendor's
// words; a host transport's thrown error rides it as a hidden cause (causeOf), in no JSON.
import type { Capabilities } from "../../contract/provider.js";
import { fail, type Result, type ResultCode, type ResultError } from "../../daemon/result.js";

/** A browser as the vendor reads it, its labels decoded. */
export interface Browser {
  id: string;
  /** Ended (released, timed out, deleted): gone, as one the vendor no longer knows. */
  ended: boolean;
  /** Still starting (Browserbase's PENDING). */
  starting?: boolean;
  labels: Record<string, string>;
  /** The vendor's wall-clock end, where it has one (Browserbase's expiresAt; Kernel's timeout is idle: none). */
  deadline?: Date;
  /** The signed CDP URL, when this answer carries it: a secret, held only in a UrlStore. */
  cdpUrl?: string;
  /** The live view URL, when this answer carries it: a secret too. */
  liveUrl?: string;
}

/** A browser asked for: its lifetime and every label it carries (the spec's, the provider's own, the create label). */
export interface OpenRequest {
  lifetimeMs: number;
  labels: Record<string, string>;
}

export interface BrowserVendor {
  /** The registry id, and the vendor's name in words. */
  readonly id: string;
  readonly name: string;
  capabilities(): Capabilities;
  /** Why a label cannot be written at this vendor (a key's character, a value it cannot query), or undefined. */
  labelProblem(key: string, value: string): string | undefined;
  /** The lifetime's floor, where the vendor has one above 1 ms. */
  readonly minLifetimeMs: number;
  /** One create request: never retried. */
  open(request: OpenRequest, signal?: AbortSignal): Promise<Result<Browser>>;
  /** One read: undefined when the vendor does not know the browser. */
  read(id: string, signal?: AbortSignal): Promise<Result<Browser | undefined>>;
  /** Every browser not ended, asked by the first label as it is (the caller matches the rest). */
  list(first: [string, string] | undefined, signal?: AbortSignal): Promise<Result<Browser[]>>;
  /** Asks the vendor to end it; one it no longer knows, or already ended, is done. */
  end(id: string, signal?: AbortSignal): Promise<Result<undefined>>;
  /** The live view's URL, asked now. */
  live(id: string, signal?: AbortSignal): Promise<Result<string>>;
  /** One account-level read that makes nothing: the browsers it shows and whether more are left unread. */
  account(signal?: AbortSignal): Promise<Result<{ browsers: Browser[]; more: boolean }>>;
}

const CAUSE = Symbol("cause");

/** The result code of an HTTP status. */
export function codeOfStatus(status: number): ResultCode {
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 404) return "not_found";
  if (status === 409) return "exists";
  if (status === 429) return "limit";
  if (status >= 400 && status < 500) return "invalid";
  return "failed";
}

/** A call's failure: the call and the status in words (or how no status came), the thrown error hidden. */
export function callFailed(vendor: string, what: string, how: { status?: number; code?: ResultCode; cause?: unknown }): { ok: false; error: ResultError } {
  const words =
    how.status !== undefined
      ? how.status === 401 || how.status === 403
        ? `${what}: ${vendor} answered HTTP ${how.status} (unauthorized: check the API key)`
        : `${what}: ${vendor} answered HTTP ${how.status}`
      : how.code === "timeout"
        ? `${what}: ${vendor} did not answer in time`
        : how.code === "aborted"
          ? `${what} was aborted`
          : how.code === "protocol"
            ? `${what}: ${vendor}'s answer is not what its API documents`
            : `${what}: ${vendor} could not be reached`;
  const failure = fail(how.status !== undefined ? codeOfStatus(how.status) : (how.code ?? "unreachable"), words);
  if (how.cause !== undefined) Object.defineProperty(failure.error, CAUSE, { value: how.cause, enumerable: false });
  return failure;
}

/** The host transport's thrown error behind a failure, when there is one. */
export function causeOf(result: Result<unknown>): unknown {
  return result.ok ? undefined : (result.error as unknown as Record<symbol, unknown>)[CAUSE];
}

/** Whether a create's failure leaves its outcome unknown: no answer, a cut-off or aborted call, a 5xx, or no browser in a 2xx. */
export function outcomeUnknown(error: ResultError): boolean {
  return ["unreachable", "timeout", "aborted", "failed", "protocol"].includes(error.code);
}
