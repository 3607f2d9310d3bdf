// The phone harness's HTTP API, each request bounded by requestMs beside the caller's signal,
// its answer a Result: the service's refusals keep their words and their kinds (limit for
// phones_busy and session_limit, denied for the key or the credit), and no word holds the key.
import { z } from "zod";
import { redactWords } from "../daemon/redact.js";
import { fail, ok, type ResultCode } from "../daemon/result.js";

export const Session = z.object({
  id: z.string(),
  request_key: z.string().nullish(),
  platform: z.string().nullish(),
  status: z.string(),
  timeout_seconds: z.number().nullish(),
  created_at: z.string().nullish(),
  expires_at: z.string().nullish(),
});
export type Session = z.infer<typeof Session>;
const Sessions = z.object({ sessions: z.array(Session) });
const AdbLink = z.object({ endpoint: z.string(), unlock_code: z.string() });
export type AdbLink = z.infer<typeof AdbLink>;

export interface ApiOptions {
  baseUrl: string;
  apiKey: string;
  requestMs: number;
  fetch: typeof fetch;
  /** The timer a bound is made with (default AbortSignal.timeout). */
  timeout: (ms: number) => AbortSignal;
}

/** A request's failure: the result's code, and lost when no answer says whether it was done (no answer, a 5xx, the bound). */
export type ApiFailure = { ok: false; error: { code: ResultCode; message: string }; lost: boolean };
export type ApiResult<T> = { ok: true; value: T } | ApiFailure;

const CODES: Record<string, ResultCode> = {
  phones_busy: "limit",
  session_limit: "limit",
  invalid_api_key: "unauthorized",
  insufficient_credit: "denied",
  not_found: "not_found",
};

export class PhoneHarnessApi {
  constructor(private readonly o: ApiOptions) {}

  async request<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    extra: { body?: unknown; key?: string; signal?: AbortSignal; ms?: number } = {},
  ): Promise<ApiResult<T>> {
    const what = `the phone harness's ${method} ${path.replace(/\/(ses_|requests\/)[^/]+/, (m) => (m.startsWith("/requests") ? "/requests/<key>" : "/<id>"))}`;
    if (extra.signal?.aborted) return { ...fail("aborted", `${what} was aborted before it was sent`), lost: false };
    const ms = Math.min(extra.ms ?? this.o.requestMs, this.o.requestMs);
    const bound = this.o.timeout(ms);
    const signal = extra.signal ? AbortSignal.any([extra.signal, bound]) : bound;
    let response: Response;
    try {
      response = await this.o.fetch(`${this.o.baseUrl}${path}`, {
        method,
        signal,
        headers: {
          authorization: `Bearer ${this.o.apiKey}`,
          ...(extra.body !== undefined ? { "content-type": "application/json" } : {}),
          ...(extra.key ? { "idempotency-key": extra.key } : {}),
        },
        body: extra.body === undefined ? undefined : JSON.stringify(extra.body),
      });
    } catch (error) {
      if (extra.signal?.aborted) return { ...fail("aborted", `${what} was aborted`), lost: true };
      if (bound.aborted) return { ...fail("unreachable", `${what} did not answer within ${ms / 1000} s`), lost: true };
      return { ...fail("unreachable", `${what} was not answered: ${this.words((error as Error).cause ?? error)}`), lost: true };
    }
    const text = await response.text().catch(() => "");
    const body = parsed(text);
    const name = typeof body?.error === "string" ? body.error : "";
    // A 5xx says nothing of what was done, but phones_busy: a refusal, whatever its status.
    if (response.status >= 500 && name !== "phones_busy")
      return { ...fail("unreachable", `${what} answered ${response.status}${this.said(body)}`), lost: true };
    if (!response.ok) {
      const code =
        CODES[name] ??
        (response.status === 401
          ? "unauthorized"
          : response.status === 402 || response.status === 403
            ? "denied"
            : response.status === 404
              ? "not_found"
              : "failed");
      return { ...fail(code, `${what} was refused (${response.status}${name ? ` ${name}` : ""})${this.said(body)}`), lost: false };
    }
    const value = schema.safeParse(body);
    if (!value.success)
      return { ...fail("failed", `${what} answered ${response.status} with no ${what.includes("adb") ? "adb link" : "session"} in it`), lost: true };
    return ok(value.data);
  }

  private said(body: Record<string, unknown> | undefined): string {
    return typeof body?.message === "string" ? `: ${this.words(body.message)}` : "";
  }

  private words(error: unknown): string {
    const text = error instanceof Error ? error.message : String(error);
    return redactWords(text.split(this.o.apiKey).join("<key>"));
  }

  create(body: { platform: string; timeout_seconds: number }, key: string, signal?: AbortSignal) {
    return this.request("POST", "/sessions", Session, { body, key, signal });
  }
  byKey(key: string, signal?: AbortSignal) {
    return this.request("GET", `/sessions/requests/${encodeURIComponent(key)}`, Session, { signal });
  }
  get(id: string, signal?: AbortSignal, ms?: number) {
    return this.request("GET", `/sessions/${encodeURIComponent(id)}`, Session, { signal, ms });
  }
  list(signal?: AbortSignal) {
    return this.request("GET", "/sessions", Sessions, { signal });
  }
  end(id: string, signal?: AbortSignal) {
    return this.request("DELETE", `/sessions/${encodeURIComponent(id)}`, z.unknown(), { signal });
  }
  adb(id: string, signal?: AbortSignal) {
    return this.request("GET", `/sessions/${encodeURIComponent(id)}/adb`, AdbLink, { signal });
  }
}

function parsed(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
