// A fake Browserbase for the tests: the endpoints the provider calls (POST /v1/sessions, GET
// /v1/sessions/{id}, POST /v1/sessions/{id} with REQUEST_RELEASE, GET /v1/sessions by status and
// user_metadata query, GET .../debug), with the vendor's status codes and shapes (the SDK's
// Session, read from @browserbasehq/sdk 2.21.0), on the shared browser fake
// (fake-browser-vendor.ts): each session a real headless Chromium container, its CDP behind a
// signed URL, its live view, and its timeout ending it (TIMED_OUT, the container removed).
import { randomUUID } from "node:crypto";
import type http from "node:http";
import { type FakeBrowser, FakeBrowserVendor, type FakeVendorOptions, readJson, send } from "./fake-browser-vendor.js";

export const FAKE_LABEL = "agentrun.test.browserbase-fake";

type Status = "PENDING" | "RUNNING" | "ERROR" | "TIMED_OUT" | "COMPLETED";

/** The SDK's Session (resources/sessions/sessions.d.ts), as the fake answers it. */
export interface Session {
  id: string;
  createdAt: string;
  updatedAt: string;
  startedAt: string;
  expiresAt: string;
  endedAt?: string;
  keepAlive: boolean;
  projectId: string;
  proxyBytes: number;
  region: "us-west-2" | "us-east-1" | "eu-central-1" | "ap-southeast-1";
  status: Status;
  userMetadata?: Record<string, unknown>;
}

interface Held extends FakeBrowser {
  session: Session;
}

export interface FakeBrowserbaseOptions extends FakeVendorOptions {
  projectId: string;
}

const MIN_TIMEOUT_S = 60;
const MAX_TIMEOUT_S = 21_600;

/** Browserbase's error shape: { statusCode, error, message }. */
function error(res: http.ServerResponse, status: number, name: string, message: string): void {
  send(res, status, { statusCode: status, error: name, message });
}

export class FakeBrowserbase extends FakeBrowserVendor<Held> {
  readonly #projectId: string;

  private constructor(options: FakeBrowserbaseOptions) {
    super(options, FAKE_LABEL);
    this.#projectId = options.projectId;
  }

  static async start(options: FakeBrowserbaseOptions): Promise<FakeBrowserbase> {
    const fake = new FakeBrowserbase(options);
    await fake.listen();
    return fake;
  }

  /** Every session, by id. */
  get sessions(): Map<string, Held> {
    return this.browsers;
  }

  /** The sessions not ended. */
  live(): Session[] {
    return [...this.browsers.values()].filter((h) => h.running()).map((h) => h.session);
  }

  protected async route(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    if (req.headers["x-bb-api-key"] !== this.apiKey) return error(res, 401, "Unauthorized", "Invalid API key");
    const body = req.method === "POST" ? await readJson(req) : undefined;
    if (url.pathname === "/v1/sessions" && req.method === "POST") return this.#create(body, res);
    if (url.pathname === "/v1/sessions" && req.method === "GET") return this.#list(url.searchParams, res);
    const one = /^\/v1\/sessions\/([\w-]+)(\/debug)?$/.exec(url.pathname);
    if (one) {
      const held = this.browsers.get(one[1]!);
      if (!held || held.session.projectId !== this.#projectId) return error(res, 404, "Not Found", "Session not found");
      if (one[2] && req.method === "GET") return this.#debug(held, res);
      if (!one[2] && req.method === "GET") return send(res, 200, this.#retrieved(held));
      if (!one[2] && req.method === "POST") return this.#update(held, body, res);
    }
    error(res, 404, "Not Found", `Cannot ${req.method} ${url.pathname}`);
  }

  async #create(body: unknown, res: http.ServerResponse): Promise<void> {
    this.creates.push(body);
    const b = (body ?? {}) as { projectId?: unknown; keepAlive?: unknown; timeout?: unknown; userMetadata?: unknown };
    if (b.projectId !== undefined && b.projectId !== this.#projectId) return error(res, 404, "Not Found", "Project not found");
    const timeout = b.timeout ?? 300;
    if (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < MIN_TIMEOUT_S || timeout > MAX_TIMEOUT_S) {
      return error(res, 400, "Bad Request", "body/timeout must be >= 60 and <= 21600");
    }
    const metadata = b.userMetadata;
    if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Object.keys(metadata).some((k) => k.includes(".")))) {
      return error(res, 400, "Bad Request", "userMetadata keys may not contain '.'");
    }
    const fault = this.takeFault();
    const id = randomUUID();
    const now = new Date();
    const session: Session = {
      id,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      startedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + timeout * 1000).toISOString(),
      keepAlive: b.keepAlive === true,
      projectId: this.#projectId,
      proxyBytes: 0,
      region: "us-west-2",
      status: "PENDING",
      ...(metadata ? { userMetadata: metadata as Record<string, unknown> } : {}),
    };
    const held: Held = { id, session, running: () => session.status === "RUNNING" || session.status === "PENDING" };
    this.browsers.set(id, held);
    try {
      held.browser = await this.start(id);
    } catch {
      session.status = "ERROR";
      session.endedAt = new Date().toISOString();
      return error(res, 500, "Internal Server Error", "the browser did not start");
    }
    if (session.status !== "PENDING") {
      // Released while it started: the container goes with it.
      await this.stop(held);
      return error(res, 500, "Internal Server Error", "the session ended while it started");
    }
    session.status = "RUNNING";
    held.timer = setTimeout(() => void this.#end(held, "TIMED_OUT"), timeout * this.timeScale);
    await this.answerCreate(res, fault, 201, { ...session, connectUrl: this.cdpUrl(id), seleniumRemoteUrl: `${this.apiUrl}/webdriver`, signingKey: "fake" });
  }

  #retrieved(held: Held) {
    return held.running() ? { ...held.session, connectUrl: this.cdpUrl(held.id) } : held.session;
  }

  #list(query: URLSearchParams, res: http.ServerResponse): void {
    const status = query.get("status");
    const q = query.get("q");
    let match: ((s: Session) => boolean) | undefined;
    if (q) {
      // The documented form: user_metadata['key']:'value'.
      const parsed = /^user_metadata\['([^']+)'\]:'([^']*)'$/.exec(q);
      if (!parsed) return error(res, 400, "Bad Request", "invalid query");
      match = (s) => s.userMetadata?.[parsed[1]!] === parsed[2];
    }
    const sessions = [...this.browsers.values()]
      .map((h) => h.session)
      .filter((s) => s.projectId === this.#projectId && (!status || s.status === status) && (!match || match(s)));
    send(res, 200, sessions);
  }

  #debug(held: Held, res: http.ServerResponse): void {
    if (!held.browser || held.session.status !== "RUNNING") return error(res, 404, "Not Found", "Session is not running");
    const live = this.liveUrl(held.id);
    send(res, 200, { debuggerFullscreenUrl: live, debuggerUrl: live, wsUrl: this.cdpUrl(held.id), pages: [] });
  }

  async #update(held: Held, body: unknown, res: http.ServerResponse): Promise<void> {
    const b = (body ?? {}) as { status?: unknown };
    if (b.status !== "REQUEST_RELEASE") return error(res, 400, "Bad Request", "body/status must be equal to constant");
    if (held.running()) await this.#end(held, "COMPLETED");
    send(res, 200, held.session);
  }

  async #end(held: Held, status: Status): Promise<void> {
    const wasStarting = held.session.status === "PENDING";
    held.session.status = status;
    held.session.endedAt = held.session.updatedAt = new Date().toISOString();
    // A session still starting loses its container when its start lands (#create).
    if (!wasStarting) await this.stop(held);
    else clearTimeout(held.timer);
  }
}
