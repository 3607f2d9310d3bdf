// A fake Kernel for the tests: the endpoints the provider calls (POST /browsers, GET
// /browsers/{id}, GET /browsers by status and tags[k]=v with limit, offset and X-Has-More, DELETE
// /browsers/{id}), with Kernel's status codes and shapes (@onkernel/sdk 0.84.0's
// BrowserCreateResponse), on the shared browser fake (fake-browser-vendor.ts): each browser a real
// headless Chromium container, its CDP behind a signed URL, its live view, and its idle timeout
// (timeout_seconds from its create or its last CDP connection) deleting it, as at Kernel.
import { randomBytes } from "node:crypto";
import type http from "node:http";
import type { KernelBrowser } from "../../src/kernel/sdk.js";
import { type FakeBrowser, FakeBrowserVendor, type FakeVendorOptions, readJson, send } from "./fake-browser-vendor.js";

export const FAKE_LABEL = "agentrun.test.kernel-fake";

interface Held extends FakeBrowser {
  answer: KernelBrowser;
}

const MIN_TIMEOUT_S = 10;
const MAX_TIMEOUT_S = 259_200;

function error(res: http.ServerResponse, status: number, code: string, message: string): void {
  send(res, status, { code, message });
}

export class FakeKernel extends FakeBrowserVendor<Held> {
  private constructor(options: FakeVendorOptions) {
    super(options, FAKE_LABEL);
  }

  static async start(options: FakeVendorOptions): Promise<FakeKernel> {
    const fake = new FakeKernel(options);
    await fake.listen();
    return fake;
  }

  /** The browsers not deleted. */
  live(): KernelBrowser[] {
    return [...this.browsers.values()].filter((h) => h.running()).map((h) => h.answer);
  }

  protected async route(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) return error(res, 401, "unauthorized", "invalid API key");
    if (url.pathname === "/browsers" && req.method === "POST") return this.#create(await readJson(req), res);
    if (url.pathname === "/browsers" && req.method === "GET") return this.#list(url.searchParams, res);
    const one = /^\/browsers\/([\w-]+)$/.exec(url.pathname);
    if (one) {
      const held = this.browsers.get(one[1]!);
      const visible = held && (held.running() || url.searchParams.get("include_deleted") === "true");
      if (!visible) return error(res, 404, "not_found", "browser not found");
      if (req.method === "GET") return send(res, 200, held.answer);
      if (req.method === "DELETE") {
        await this.#delete(held);
        return void (res.writeHead(204), res.end());
      }
    }
    error(res, 404, "not_found", `no route ${req.method} ${url.pathname}`);
  }

  /** CDP activity keeps a browser: its idle timer starts again. */
  protected override touched(held: Held): void {
    this.#idle(held);
  }

  #idle(held: Held): void {
    clearTimeout(held.timer);
    held.timer = setTimeout(() => void this.#delete(held), held.answer.timeout_seconds * this.timeScale);
  }

  async #create(body: unknown, res: http.ServerResponse): Promise<void> {
    this.creates.push(body);
    const b = (body ?? {}) as { timeout_seconds?: unknown; tags?: unknown; headless?: unknown };
    const timeout = b.timeout_seconds ?? 60;
    if (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < MIN_TIMEOUT_S || timeout > MAX_TIMEOUT_S) {
      return error(res, 400, "bad_request", "timeout_seconds must be between 10 and 259200");
    }
    const tags = (b.tags ?? {}) as Record<string, unknown>;
    if (typeof tags !== "object" || Object.values(tags).some((v) => typeof v !== "string") || Object.keys(tags).length > 50) {
      return error(res, 400, "bad_request", "tags must be at most 50 string pairs");
    }
    const fault = this.takeFault();
    const id = randomBytes(12).toString("hex").slice(0, 24);
    let deleted = false;
    const answer: KernelBrowser = {
      session_id: id,
      cdp_ws_url: this.cdpUrl(id),
      browser_live_view_url: this.liveUrl(id),
      created_at: new Date().toISOString(),
      timeout_seconds: timeout,
      headless: b.headless !== false,
      stealth: false,
      tags: tags as Record<string, string>,
    };
    const held: Held = { id, answer, running: () => !deleted && answer.deleted_at === undefined };
    this.browsers.set(id, held);
    try {
      held.browser = await this.start(id);
    } catch {
      deleted = true;
      return error(res, 500, "internal_error", "the browser did not start");
    }
    if (!held.running()) {
      await this.stop(held);
      return error(res, 500, "internal_error", "the browser was deleted while it started");
    }
    this.#idle(held);
    await this.answerCreate(res, fault, 200, answer);
  }

  #list(query: URLSearchParams, res: http.ServerResponse): void {
    const status = query.get("status") ?? "active";
    if (!["active", "deleted", "all"].includes(status)) return error(res, 400, "bad_request", "status is active, deleted or all");
    const tags = [...query.entries()].flatMap(([k, v]) => {
      const key = /^tags\[(.+)\]$/.exec(k)?.[1];
      return key === undefined ? [] : [[key, v] as const];
    });
    const limit = Number(query.get("limit") ?? 20);
    const offset = Number(query.get("offset") ?? 0);
    const all = [...this.browsers.values()].filter(
      (h) => (status === "all" || (status === "active") === h.running()) && tags.every(([k, v]) => h.answer.tags?.[k] === v),
    );
    const page = all.slice(offset, offset + limit).map((h) => h.answer);
    const more = offset + limit < all.length;
    send(res, 200, page, { "x-has-more": String(more), ...(more ? { "x-next-offset": String(offset + limit) } : {}) });
  }

  async #delete(held: Held): Promise<void> {
    if (held.answer.deleted_at !== undefined) return;
    held.answer.deleted_at = new Date().toISOString();
    await this.stop(held);
  }
}
