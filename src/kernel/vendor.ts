// Kernel as a browser vendor (src/kits/browser/vendor.ts): a computer is a browser, its labels
// its tags as they are, its lifetime an idle timeout (timeout_seconds), so it has no wall-clock
// deadline. Not ended is not deleted: list asks status=all (Kernel's filter takes one value, and
// active may leave out a browser still starting) and drops the deleted.
import { z } from "zod";
import { vendorCall } from "../kits/browser/call.js";
import { type Browser, type BrowserVendor, callFailed, type OpenRequest } from "../kits/browser/vendor.js";
import type { Capabilities } from "../contract/provider.js";
import { ok, type Result } from "../daemon/result.js";
import { CALL_MS, CREATE_MS, MIN_LIFETIME_MS, PAGE } from "./constants.js";
import type { KernelRequest } from "./sdk.js";

const NAME = "Kernel";

const BrowserAnswer = z.object({
  session_id: z.string().min(1),
  cdp_ws_url: z.string().optional(),
  browser_live_view_url: z.string().optional(),
  deleted_at: z.string().nullish(),
  tags: z.record(z.string(), z.string()).nullish(),
});

function browserOf(answer: z.infer<typeof BrowserAnswer>): Browser {
  return {
    id: answer.session_id,
    ended: Boolean(answer.deleted_at),
    labels: { ...answer.tags },
    ...(answer.cdp_ws_url ? { cdpUrl: answer.cdp_ws_url } : {}),
    ...(answer.browser_live_view_url ? { liveUrl: answer.browser_live_view_url } : {}),
  };
}

export class KernelVendor implements BrowserVendor {
  readonly id = "kernel";
  readonly name = NAME;
  readonly minLifetimeMs = MIN_LIFETIME_MS;
  readonly #request: KernelRequest;
  readonly #capabilities: Capabilities;

  constructor(request: KernelRequest, capabilities: Capabilities) {
    this.#request = request;
    this.#capabilities = capabilities;
  }

  capabilities(): Capabilities {
    return this.#capabilities;
  }

  labelProblem(key: string, value: string): string | undefined {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(key)) {
      return `the label key ${JSON.stringify(key.slice(0, 60))} cannot be a Kernel tag here: a key is 1 to 64 letters, digits, dots, dashes or underscores`;
    }
    if (value.length > 255) return `the label ${key}'s value is longer than 255 characters`;
    return undefined;
  }

  #parsed(what: string, answer: unknown): Result<Browser> {
    const parsed = BrowserAnswer.safeParse(answer);
    return parsed.success ? ok(browserOf(parsed.data)) : callFailed(NAME, what, { code: "protocol" });
  }

  async #page(what: string, query: Record<string, string>, signal?: AbortSignal): Promise<Result<{ browsers: Browser[]; more: boolean }>> {
    const answer = await vendorCall(NAME, what, CALL_MS, signal, (s) =>
      this.#request({ method: "GET", path: "/browsers", query: { ...query, limit: String(PAGE) }, signal: s }),
    );
    if (!answer.ok) return answer;
    if (!Array.isArray(answer.value)) return callFailed(NAME, what, { code: "protocol" });
    const browsers: Browser[] = [];
    for (const item of answer.value) {
      const one = this.#parsed(what, item);
      if (!one.ok) return one;
      browsers.push(one.value);
    }
    return ok({ browsers, more: answer.value.length >= PAGE });
  }

  async open(request: OpenRequest, signal?: AbortSignal): Promise<Result<Browser>> {
    const body = { timeout_seconds: Math.ceil(request.lifetimeMs / 1000), tags: request.labels, headless: true };
    const answer = await vendorCall(NAME, "POST /browsers", CREATE_MS, signal, (s) => this.#request({ method: "POST", path: "/browsers", body, signal: s }));
    return answer.ok ? this.#parsed("POST /browsers", answer.value) : answer;
  }

  async read(id: string, signal?: AbortSignal): Promise<Result<Browser | undefined>> {
    const what = "GET /browsers/{id}";
    const answer = await vendorCall(NAME, what, CALL_MS, signal, (s) =>
      this.#request({ method: "GET", path: `/browsers/${encodeURIComponent(id)}`, signal: s }),
    );
    if (!answer.ok) return answer.error.code === "not_found" ? ok(undefined) : answer;
    return this.#parsed(what, answer.value);
  }

  async list(first: [string, string] | undefined, signal?: AbortSignal): Promise<Result<Browser[]>> {
    const query: Record<string, string> = { status: "all", ...(first ? { [`tags[${first[0]}]`]: first[1] } : {}) };
    const out: Browser[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await this.#page("GET /browsers?status=all", { ...query, offset: String(offset) }, signal);
      if (!page.ok) return page;
      out.push(...page.value.browsers.filter((b) => !b.ended));
      if (!page.value.more) return ok(out);
    }
  }

  async end(id: string, signal?: AbortSignal): Promise<Result<undefined>> {
    const what = "DELETE /browsers/{id}";
    const answer = await vendorCall(NAME, what, CALL_MS, signal, (s) =>
      this.#request({ method: "DELETE", path: `/browsers/${encodeURIComponent(id)}`, signal: s }),
    );
    // Unknown to Kernel: already gone, so released.
    return answer.ok || answer.error.code === "not_found" ? ok() : answer;
  }

  async live(id: string, signal?: AbortSignal): Promise<Result<string>> {
    const read = await this.read(id, signal);
    if (!read.ok) return read;
    return read.value?.liveUrl ? ok(read.value.liveUrl) : callFailed(NAME, "GET /browsers/{id}", { code: "protocol" });
  }

  account(signal?: AbortSignal): Promise<Result<{ browsers: Browser[]; more: boolean }>> {
    return this.#page("GET /browsers?status=active", { status: "active" }, signal);
  }
}
