// The API server through Node's own https: the kubeconfig's CA, client certificate or bearer
// token on every call, no redirect followed, each call bounded and under the caller's signal.
// An answer other than 2xx is a result coded by its status, in the API server's own message.
import https from "node:https";
import tls from "node:tls";
import { boundedBy } from "../daemon/bound.js";
import { redactWords } from "../daemon/redact.js";
import { fail, ok, type Result, type ResultCode } from "../daemon/result.js";
import type { Credentials } from "./kubeconfig.js";

export interface Call {
  method?: "GET" | "POST" | "PATCH" | "DELETE";
  body?: unknown;
  /** PATCH's content type (default a merge patch). */
  contentType?: string;
  /** The answer as text, not JSON (a container's log). */
  text?: boolean;
  signal?: AbortSignal | undefined;
  ms: number;
}

/** The bearer token's header, read at each call (in-cluster, the kubelet rotates the token). */
export function authHeaders(c: Credentials): Record<string, string> {
  const token = typeof c.token === "function" ? c.token() : c.token;
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** How long an idle connection to the API server is kept for the next call. */
const IDLE_MS = 5_000;

/** A status as a result's code. */
export function codeOfStatus(status: number): ResultCode {
  if (status === 404 || status === 410) return "not_found";
  if (status === 401) return "unauthorized";
  if (status === 403) return "refused";
  if (status === 400 || status === 422) return "invalid";
  if (status === 409) return "exists";
  return "failed";
}

/** The API server's message from a Status body, else the status line. */
function messageOf(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body.message === "string" && body.message) return redactWords(body.message.slice(0, 600));
  } catch {
    // not JSON: the status alone says it
  }
  return `HTTP ${status}`;
}

export class KubeApi {
  readonly #creds: Credentials;
  #agent: Result<https.Agent> | undefined;

  constructor(creds: Credentials) {
    this.#creds = creds;
  }

  /**
   * One TLS context (the CA, the client certificate) and one keep-alive pool for every call and
   * exec: a context made per connection was most of a fleet's create CPU. Made at first use, so
   * certificate data the TLS library refuses is a result in words.
   */
  agent(): Result<https.Agent> {
    if (this.#agent) return this.#agent;
    const c = this.#creds;
    try {
      const secureContext = tls.createSecureContext({ ...(c.ca ? { ca: c.ca } : {}), ...(c.cert ? { cert: c.cert, key: c.key } : {}) });
      this.#agent = ok(new https.Agent({ keepAlive: true, timeout: IDLE_MS, secureContext, ...(c.serverName ? { servername: c.serverName } : {}) }));
    } catch (error) {
      this.#agent = fail("invalid", `the kubeconfig's certificate data could not be used: ${redactWords((error as Error).message)}`, { field: "kubeconfig" });
    }
    return this.#agent;
  }

  get server(): string {
    return this.#creds.server;
  }

  get credentials(): Credentials {
    return this.#creds;
  }

  /** One call; what says it in words for a failure. The body parsed as JSON. */
  async call<T = unknown>(path: string, what: string, options: Call): Promise<Result<T>> {
    if (options.signal?.aborted) return fail("aborted", `${what} was aborted before the API server was asked`);
    const agent = this.agent();
    if (!agent.ok) return agent;
    const { bound, signal } = boundedBy(options.ms, options.signal);
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const method = options.method ?? "GET";
    const contentType = method === "PATCH" ? (options.contentType ?? "application/merge-patch+json") : "application/json";
    return new Promise<Result<T>>((resolve) => {
      const req = https.request(
        `${this.#creds.server}${path}`,
        {
          agent: agent.value,
          method,
          signal,
          headers: {
            ...authHeaders(this.#creds),
            accept: options.text ? "*/*" : "application/json",
            ...(body !== undefined ? { "content-type": contentType, "content-length": String(Buffer.byteLength(body)) } : {}),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("error", (error) => resolve(this.#failed(what, error, bound, options.signal)));
          res.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8");
            const status = res.statusCode ?? 0;
            if (status >= 200 && status < 300) {
              try {
                resolve(ok((options.text ? text : text ? JSON.parse(text) : undefined) as T));
              } catch {
                resolve(fail("protocol", `${what}: the API server's answer is not JSON`));
              }
            } else resolve(fail(codeOfStatus(status), `${what}: ${messageOf(status, text)}`));
          });
        },
      );
      req.on("error", (error) => resolve(this.#failed(what, error, bound, options.signal)));
      req.end(body);
    });
  }

  /**
   * A watch (the path with watch=1): each object the API server sends goes to take until it returns
   * true, and that object is the result; an ERROR event, the stream's end, the bound or the caller's
   * abort first is a failure in words.
   */
  watch<T>(path: string, what: string, take: (object: T) => boolean, options: { ms: number; signal?: AbortSignal | undefined }): Promise<Result<T>> {
    if (options.signal?.aborted) return Promise.resolve(fail("aborted", `${what} was aborted before the API server was asked`));
    const agent = this.agent();
    if (!agent.ok) return Promise.resolve(agent);
    const { bound, signal } = boundedBy(options.ms, options.signal);
    return new Promise<Result<T>>((resolve) => {
      let settled = false;
      const finish = (result: Result<T>) => {
        if (settled) return;
        settled = true;
        req.destroy();
        resolve(result);
      };
      const req = https.request(
        `${this.#creds.server}${path}`,
        { agent: agent.value, method: "GET", signal, headers: { ...authHeaders(this.#creds), accept: "application/json" } },
        (res) => {
          const status = res.statusCode ?? 0;
          let text = "";
          res.on("error", (error) => finish(this.#failed(what, error, bound, options.signal)));
          res.on("end", () =>
            finish(
              status >= 200 && status < 300
                ? fail("failed", `${what}: the API server ended the watch`)
                : fail(codeOfStatus(status), `${what}: ${messageOf(status, text)}`),
            ),
          );
          res.on("data", (chunk: Buffer) => {
            text += chunk.toString("utf8");
            if (status < 200 || status >= 300) return;
            // One event a line: {"type": ADDED | MODIFIED | DELETED | ERROR, "object": ...}.
            for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n")) {
              const line = text.slice(0, nl).trim();
              text = text.slice(nl + 1);
              if (!line) continue;
              let event: { type?: string; object?: { message?: string; code?: number } };
              try {
                event = JSON.parse(line) as typeof event;
              } catch {
                return finish(fail("protocol", `${what}: the API server sent an event that is not JSON`));
              }
              if (event.type === "ERROR")
                return finish(
                  fail(codeOfStatus(event.object?.code ?? 0), `${what}: ${redactWords(String(event.object?.message ?? "the watch failed").slice(0, 600))}`),
                );
              if (event.object !== undefined && take(event.object as T)) return finish(ok(event.object as T));
            }
          });
        },
      );
      req.on("error", (error) => finish(this.#failed(what, error, bound, options.signal)));
      req.end();
    });
  }

  #failed<T>(what: string, error: Error, bound: AbortSignal, caller: AbortSignal | undefined): Result<T> {
    if (caller?.aborted) return fail("aborted", `${what} was aborted`);
    if (bound.aborted) return fail("timeout", `${what}: the API server did not answer within the bound`);
    return fail("unreachable", `${what}: the API server at ${this.#creds.server} could not be reached (${redactWords(error.message)})`);
  }
}
