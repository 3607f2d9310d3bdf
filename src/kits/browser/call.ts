// One vendor call of a browser vendor: bounded, under the caller's signal, never retried, and
// coded by the HTTP status its transport threw (the vendors' SDKs and our fetch transport both
// throw an error with a numeric status). The words name the call and the status alone.
import { boundedBy } from "../../daemon/bound.js";
import { ok, type Result } from "../../daemon/result.js";
import { callFailed } from "./vendor.js";

/** The transport's error for an HTTP answer outside 2xx, as the vendors' SDKs throw theirs: status only. */
export class HttpError extends Error {
  override readonly name = "HttpError";
  constructor(readonly status: number) {
    super(`HTTP ${status}`);
  }
}

const statusOf = (error: unknown): number | undefined => {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" && Number.isInteger(status) && status >= 100 ? status : undefined;
};

/** run's value, or its failure in words naming the call; the thrown error hidden on the failure. */
export async function vendorCall<T>(
  vendor: string,
  what: string,
  ms: number,
  caller: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<Result<T>> {
  if (caller?.aborted) return callFailed(vendor, what, { code: "aborted" });
  const { bound, signal } = boundedBy(ms, caller);
  let onAbort: (() => void) | undefined;
  // A transport that ignores its signal still ends at the bound.
  const stopped = new Promise<"stopped">((resolve) => {
    onAbort = () => resolve("stopped");
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const value = await Promise.race([run(signal), stopped]);
    if (value === "stopped") return callFailed(vendor, what, { code: caller?.aborted ? "aborted" : "timeout" });
    return ok(value as T);
  } catch (cause) {
    const status = statusOf(cause);
    if (status !== undefined) return callFailed(vendor, what, { status, cause });
    const code = caller?.aborted ? "aborted" : bound.aborted ? "timeout" : cause instanceof SyntaxError ? "protocol" : "unreachable";
    return callFailed(vendor, what, { code, cause });
  } finally {
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

export interface JsonRequest {
  method?: "GET" | "POST" | "DELETE" | "PATCH";
  query?: Record<string, string>;
  body?: unknown;
  headers: Record<string, string>;
  signal: AbortSignal;
}

/** One HTTP request with a JSON answer (undefined when empty); a status outside 2xx throws HttpError. No redirect is followed: the key would go with it. */
export async function jsonRequest(fetchImpl: typeof fetch, base: string, path: string, request: JsonRequest): Promise<unknown> {
  const url = new URL(base.replace(/\/+$/, "") + path);
  for (const [k, v] of Object.entries(request.query ?? {})) url.searchParams.set(k, v);
  const headers = { ...request.headers, ...(request.body !== undefined ? { "Content-Type": "application/json" } : {}) };
  const response = await fetchImpl(url, {
    method: request.method ?? "GET",
    headers,
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
    redirect: "manual",
    signal: request.signal,
  });
  const text = await response.text();
  if (response.status < 200 || response.status >= 300) throw new HttpError(response.status);
  return text ? JSON.parse(text) : undefined;
}
