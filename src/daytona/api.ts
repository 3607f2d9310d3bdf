// Daytona's v0 REST API through fetch: Authorization: Bearer on every call, no redirect ever
// followed (the key would go with it), each call bounded and under the caller's signal, reads,
// the upload and deletes tried three times with backoff, every answer held to its zod schema.
import type { z } from "zod";
import { issuesInWords } from "../daemon/client.js";
import { redactWords } from "../daemon/redact.js";
import { fail, ok, type Result, type ResultCode } from "../daemon/result.js";
import { BACKOFF_MS, TIMEOUTS, TRIES } from "./constants.js";
import { ErrorBody } from "./schemas.js";
import { boundedBy } from "../daemon/bound.js";

export type Fetch = typeof fetch;

export interface RequestOptions {
  method?: "GET" | "POST" | "PUT" | "DELETE";
  query?: Record<string, string>;
  /** JSON, or a FormData for the upload. */
  body?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Tried three times with backoff on a 5xx or no answer (reads, the upload, deletes). */
  retry?: boolean;
}

/** An answer: its status and its JSON (undefined for an empty or non-JSON body). */
export interface Answer {
  status: number;
  json: unknown;
  text: string;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const onAbort = () => (clearTimeout(timer), resolve());
    const timer = setTimeout(() => (signal?.removeEventListener("abort", onAbort), resolve()), ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

export class DaytonaApi {
  readonly #key: string;
  readonly #fetch: Fetch;

  constructor(key: string, fetchImpl: Fetch = fetch) {
    this.#key = key;
    this.#fetch = fetchImpl;
  }

  /** One call to base + path; a failed answer is a result naming what was asked, never the key. */
  async request(base: string, path: string, what: string, options: RequestOptions = {}): Promise<Result<Answer>> {
    const tries = options.retry ? TRIES : 1;
    let last: Result<Answer> = fail("unreachable", `${what}: Daytona was not asked`);
    for (let attempt = 1; attempt <= tries; attempt += 1) {
      if (options.signal?.aborted) return fail("aborted", `${what} was aborted`);
      last = await this.#once(base, path, what, options);
      const retryable = !last.ok ? last.error.code === "unreachable" || last.error.code === "timeout" : last.value.status >= 500;
      if (!retryable || attempt === tries) break;
      await sleep(BACKOFF_MS * 2 ** (attempt - 1), options.signal);
    }
    return last;
  }

  async #once(base: string, path: string, what: string, options: RequestOptions): Promise<Result<Answer>> {
    const url = new URL(base.replace(/\/+$/, "") + path);
    for (const [k, v] of Object.entries(options.query ?? {})) url.searchParams.set(k, v);
    const { bound, signal } = boundedBy(options.timeoutMs ?? TIMEOUTS.requestMs, options.signal);
    const form = options.body instanceof FormData;
    const headers: Record<string, string> = { Authorization: `Bearer ${this.#key}`, ...options.headers };
    if (options.body !== undefined && !form) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await this.#fetch(url, {
        method: options.method ?? "GET",
        headers,
        body: options.body === undefined ? undefined : form ? (options.body as FormData) : JSON.stringify(options.body),
        redirect: "manual",
        signal,
      });
    } catch (error) {
      if (options.signal?.aborted) return fail("aborted", `${what} was aborted`);
      if (bound.aborted) return fail("timeout", `${what}: Daytona did not answer within ${(options.timeoutMs ?? TIMEOUTS.requestMs) / 1000} s`);
      return fail("unreachable", `${what}: Daytona could not be reached (${redactWords((error as Error).message)})`);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      if (options.signal?.aborted) return fail("aborted", `${what} was aborted`);
      return fail("unreachable", `${what}: Daytona's answer was cut off (${redactWords((error as Error).message)})`);
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (response.status >= 300 && response.status < 400) {
      return fail("refused", `${what}: Daytona answered a redirect (${response.status}), which is never followed: the key would go with it`);
    }
    return ok({ status: response.status, json, text });
  }
}

/** Daytona's words in an error answer, clipped, never the key. */
export function wordsOf(answer: Answer): string {
  const body = ErrorBody.safeParse(answer.json);
  const message = body.success ? (Array.isArray(body.data.message) ? body.data.message.join("; ") : (body.data.message ?? body.data.error)) : undefined;
  const words = (message ?? answer.text).replace(/\s+/g, " ").trim();
  return redactWords(words.length > 300 ? `${words.slice(0, 300)}...` : words || "(no words)");
}

/** The result code an HTTP status maps to. */
export function codeOf(status: number): ResultCode {
  if (status === 401 || status === 403) return "unauthorized";
  if (status === 404) return "not_found";
  if (status === 409) return "exists";
  if (status >= 400 && status < 500) return "invalid";
  return "failed";
}

/** An answer held to its status and schema: ok with the parsed body, or a failure in words. */
export function expect<T extends z.ZodType>(
  answer: Result<Answer>,
  what: string,
  schema: T,
  okStatus: (s: number) => boolean = (s) => s >= 200 && s < 300,
): Result<z.infer<T>> {
  if (!answer.ok) return answer;
  const { status } = answer.value;
  if (!okStatus(status)) return fail(codeOf(status), `${what}: Daytona answered ${status}: ${wordsOf(answer.value)}`);
  const parsed = schema.safeParse(answer.value.json);
  if (!parsed.success) return fail("protocol", `${what}: Daytona's answer is not what its API documents: ${issuesInWords(parsed.error)}`);
  return ok(parsed.data);
}

/** An answer whose body is not read: ok on 2xx, else a failure in words. */
export function expectDone(answer: Result<Answer>, what: string): Result<undefined> {
  if (!answer.ok) return answer;
  const { status } = answer.value;
  if (status >= 200 && status < 300) return ok();
  return fail(codeOf(status), `${what}: Daytona answered ${status}: ${wordsOf(answer.value)}`);
}
