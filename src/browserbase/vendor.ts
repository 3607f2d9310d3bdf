// Browserbase as a browser vendor (src/kits/browser/vendor.ts): a computer is a session made
// with keepAlive, its labels in userMetadata with each key's dots written as _ (Browserbase refuses
// a dot in a metadata key), its lifetime the session's timeout. Not ended is RUNNING or PENDING.
import { z } from "zod";
import { vendorCall } from "../kits/browser/call.js";
import { type Browser, type BrowserVendor, callFailed, type OpenRequest } from "../kits/browser/vendor.js";
import type { Capabilities } from "../contract/provider.js";
import { ok, type Result } from "../daemon/result.js";
import { CALL_MS, CREATE_MS, MIN_LIFETIME_MS } from "./constants.js";
import type { BrowserbaseApi, SessionStatus } from "./sdk.js";

const NAME = "Browserbase";

const SessionAnswer = z.object({
  id: z.string().min(1),
  status: z.enum(["PENDING", "RUNNING", "ERROR", "TIMED_OUT", "COMPLETED"]),
  expiresAt: z.string().optional(),
  userMetadata: z.record(z.string(), z.unknown()).nullish(),
  connectUrl: z.string().optional(),
});

/** A label's key as a metadata key: dots written as _. */
export const metadataKey = (key: string) => key.replaceAll(".", "_");
const labelKey = (key: string) => key.replaceAll("_", ".");

function browserOf(answer: z.infer<typeof SessionAnswer>): Browser {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(answer.userMetadata ?? {})) if (typeof v === "string") labels[labelKey(k)] = v;
  const deadline = answer.expiresAt ? new Date(answer.expiresAt) : undefined;
  return {
    id: answer.id,
    ended: answer.status !== "RUNNING" && answer.status !== "PENDING",
    starting: answer.status === "PENDING",
    labels,
    ...(deadline && !Number.isNaN(deadline.getTime()) ? { deadline } : {}),
    ...(answer.connectUrl ? { cdpUrl: answer.connectUrl } : {}),
  };
}

export class BrowserbaseVendor implements BrowserVendor {
  readonly id = "browserbase";
  readonly name = NAME;
  readonly minLifetimeMs = MIN_LIFETIME_MS;
  readonly #api: BrowserbaseApi;
  readonly #projectId: string;
  readonly #capabilities: Capabilities;

  constructor(api: BrowserbaseApi, projectId: string, capabilities: Capabilities) {
    this.#api = api;
    this.#projectId = projectId;
    this.#capabilities = capabilities;
  }

  capabilities(): Capabilities {
    return this.#capabilities;
  }

  labelProblem(key: string, value: string): string | undefined {
    if (!/^[A-Za-z0-9]+(\.[A-Za-z0-9]+)*$/.test(key)) {
      return `the label key ${JSON.stringify(key.slice(0, 60))} cannot ride a Browserbase session: a key is letters and digits, parts joined by dots (each dot is written as _ in userMetadata)`;
    }
    if (value.includes("'") || value.includes("\\")) return `the label ${key}'s value cannot be queried at Browserbase: it holds a quote or a backslash`;
    return undefined;
  }

  #parsed(what: string, answer: unknown): Result<Browser> {
    const parsed = SessionAnswer.safeParse(answer);
    return parsed.success ? ok(browserOf(parsed.data)) : callFailed(NAME, what, { code: "protocol" });
  }

  async open(request: OpenRequest, signal?: AbortSignal): Promise<Result<Browser>> {
    const userMetadata = Object.fromEntries(Object.entries(request.labels).map(([k, v]) => [metadataKey(k), v]));
    const params = { projectId: this.#projectId, keepAlive: true, api_timeout: Math.ceil(request.lifetimeMs / 1000), userMetadata };
    const answer = await vendorCall(NAME, "POST /v1/sessions", CREATE_MS, signal, (s) => this.#api.create(params, { signal: s }));
    return answer.ok ? this.#parsed("POST /v1/sessions", answer.value) : answer;
  }

  async read(id: string, signal?: AbortSignal): Promise<Result<Browser | undefined>> {
    const answer = await vendorCall(NAME, "GET /v1/sessions/{id}", CALL_MS, signal, (s) => this.#api.retrieve(id, { signal: s }));
    if (!answer.ok) return answer.error.code === "not_found" ? ok(undefined) : answer;
    return this.#parsed("GET /v1/sessions/{id}", answer.value);
  }

  async list(first: [string, string] | undefined, signal?: AbortSignal): Promise<Result<Browser[]>> {
    const q = first ? `user_metadata['${metadataKey(first[0])}']:'${first[1]}'` : undefined;
    const out: Browser[] = [];
    for (const status of ["RUNNING", "PENDING"] satisfies SessionStatus[]) {
      const what = `GET /v1/sessions?status=${status}`;
      const answer = await vendorCall(NAME, what, CALL_MS, signal, (s) => this.#api.list({ status, ...(q ? { q } : {}) }, { signal: s }));
      if (!answer.ok) return answer;
      if (!Array.isArray(answer.value)) return callFailed(NAME, what, { code: "protocol" });
      for (const item of answer.value) {
        const one = this.#parsed(what, item);
        if (!one.ok) return one;
        out.push(one.value);
      }
    }
    return ok(out);
  }

  async end(id: string, signal?: AbortSignal): Promise<Result<undefined>> {
    const what = "POST /v1/sessions/{id} REQUEST_RELEASE";
    const answer = await vendorCall(NAME, what, CALL_MS, signal, (s) =>
      this.#api.update(id, { status: "REQUEST_RELEASE", projectId: this.#projectId }, { signal: s }),
    );
    // Unknown to Browserbase: already gone, so released.
    return answer.ok || answer.error.code === "not_found" ? ok() : answer;
  }

  async live(id: string, signal?: AbortSignal): Promise<Result<string>> {
    const what = "GET /v1/sessions/{id}/debug";
    const answer = await vendorCall(NAME, what, CALL_MS, signal, (s) => this.#api.debug(id, {}, { signal: s }));
    if (!answer.ok) return answer;
    const url = (answer.value as { debuggerFullscreenUrl?: unknown } | undefined)?.debuggerFullscreenUrl;
    return typeof url === "string" && url ? ok(url) : callFailed(NAME, what, { code: "protocol" });
  }

  async account(signal?: AbortSignal): Promise<Result<{ browsers: Browser[]; more: boolean }>> {
    const what = "GET /v1/sessions?status=RUNNING";
    const answer = await vendorCall(NAME, what, CALL_MS, signal, (s) => this.#api.list({ status: "RUNNING" }, { signal: s }));
    if (!answer.ok) return answer;
    if (!Array.isArray(answer.value)) return callFailed(NAME, what, { code: "protocol" });
    const browsers = answer.value.flatMap((item) => {
      const one = SessionAnswer.safeParse(item);
      return one.success ? [browserOf(one.data)] : [];
    });
    return ok({ browsers, more: false });
  }
}
