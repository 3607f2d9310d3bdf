// A fake Browserbase for the tests: a real HTTP server on the loopback speaking the endpoints the
// provider calls (POST /v1/sessions, GET /v1/sessions/{id}, POST /v1/sessions/{id} with
// REQUEST_RELEASE, GET /v1/sessions by status and user_metadata query, GET .../debug), with the
// vendor's status codes and shapes (the SDK's Session, read from @browserbasehq/sdk 2.21.0), whose
// sessions are real headless Chromium containers (fake-chromium.ts). Each session's CDP is behind a
// signed URL the fake checks (a wrong or missing signingKey is 401), its live view a page made from
// the browser's screenshots, and its timeout ends it (TIMED_OUT, the container removed) as at the
// vendor. Everything it makes carries the label agentrun.test.browserbase-fake=<run>; close() removes it.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { browserImage, type Chromium, relay, removeChromium, removeLabelled, screenshot, startChromium } from "./fake-chromium.js";

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

interface Held {
  session: Session;
  browser?: Chromium;
  timer?: NodeJS.Timeout;
}

/** What a test makes the next create do: answer whole (default), lose its reply, or fail after making the session. */
export type CreateFault = "none" | "drop-reply" | "answer-500" | "answer-no-body";

export interface FakeBrowserbaseOptions {
  apiKey: string;
  projectId: string;
  /** The browser image; default the recipe's, built once. */
  image?: string;
  /** Docker names start with it (default bbfake-<pid>). */
  prefix?: string;
  /** The value of the fake's label on every container (default made up): a caller removes a run's leftovers by it. */
  run?: string;
}

const MIN_TIMEOUT_S = 60;
const MAX_TIMEOUT_S = 21_600;

export class FakeBrowserbase {
  readonly sessions = new Map<string, Held>();
  /** Every create request the fake was sent, in order (bodies as sent). */
  readonly creates: unknown[] = [];
  /** The next create's fault, reset once used. */
  createFault: CreateFault = "none";
  /** Holds each create this long before it answers (a create cut off during the POST). */
  createDelayMs = 0;
  /** A session ends at its timeout, scaled by this (a test's timeout in seconds becomes ms). */
  timeScale = 1000;
  readonly #options: Required<Omit<FakeBrowserbaseOptions, "run">>;
  readonly #secret = randomBytes(32);
  readonly #server: http.Server;
  readonly #run: string;
  #image = "";

  private constructor(options: FakeBrowserbaseOptions) {
    const { run, ...rest } = options;
    this.#options = { image: "", prefix: `bbfake-${process.pid}`, ...rest };
    this.#run = run ?? randomBytes(4).toString("hex");
    this.#server = http.createServer((req, res) => void this.#route(req, res));
    this.#server.on("upgrade", (req, socket, head) => this.#upgrade(req, socket, head));
  }

  static async start(options: FakeBrowserbaseOptions): Promise<FakeBrowserbase> {
    const fake = new FakeBrowserbase(options);
    fake.#image = options.image || (await browserImage());
    await new Promise<void>((resolve) => fake.#server.listen(0, "127.0.0.1", resolve));
    return fake;
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** The sessions not ended. */
  live(): Session[] {
    return [...this.sessions.values()].map((h) => h.session).filter((s) => s.status === "RUNNING" || s.status === "PENDING");
  }

  /** The container of a session, to reach its CDP directly (the bench's anchor). */
  browserOf(id: string): Chromium | undefined {
    return this.sessions.get(id)?.browser;
  }

  async close(): Promise<void> {
    for (const held of this.sessions.values()) clearTimeout(held.timer);
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
    await removeLabelled(`${FAKE_LABEL}=${this.#run}`);
  }

  #sign(what: string): string {
    return createHmac("sha256", this.#secret).update(what).digest("hex");
  }

  #signed(what: string, given: string | null): boolean {
    if (!given) return false;
    const want = Buffer.from(this.#sign(what));
    const got = Buffer.from(given);
    return want.length === got.length && timingSafeEqual(want, got);
  }

  #connectUrl(id: string): string {
    return `${this.apiUrl.replace(/^http/, "ws")}/connect?sessionId=${id}&signingKey=${this.#sign(`cdp:${id}`)}`;
  }

  async #route(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.apiUrl);
    try {
      const live = /^\/live\/([\w-]+)(\/frame\.jpg)?$/.exec(url.pathname);
      if (live && req.method === "GET") return await this.#live(live[1]!, Boolean(live[2]), url.searchParams.get("token"), res);
      if (req.headers["x-bb-api-key"] !== this.#options.apiKey) return error(res, 401, "Unauthorized", "Invalid API key");
      const body = req.method === "POST" ? await readJson(req) : undefined;
      if (url.pathname === "/v1/sessions" && req.method === "POST") return await this.#create(body, res);
      if (url.pathname === "/v1/sessions" && req.method === "GET") return this.#list(url.searchParams, res);
      const one = /^\/v1\/sessions\/([\w-]+)(\/debug)?$/.exec(url.pathname);
      if (one) {
        const held = this.sessions.get(one[1]!);
        if (!held || held.session.projectId !== this.#options.projectId) return error(res, 404, "Not Found", "Session not found");
        if (one[2] && req.method === "GET") return this.#debug(held, res);
        if (!one[2] && req.method === "GET") return send(res, 200, this.#retrieved(held));
        if (!one[2] && req.method === "POST") return await this.#update(held, body, res);
      }
      error(res, 404, "Not Found", `Cannot ${req.method} ${url.pathname}`);
    } catch (e) {
      if (e instanceof BadBody) return error(res, 400, "Bad Request", e.message);
      error(res, 500, "Internal Server Error", "the fake failed");
    }
  }

  async #create(body: unknown, res: http.ServerResponse): Promise<void> {
    this.creates.push(body);
    const b = (body ?? {}) as { projectId?: unknown; keepAlive?: unknown; timeout?: unknown; userMetadata?: unknown };
    if (b.projectId !== undefined && b.projectId !== this.#options.projectId) return error(res, 404, "Not Found", "Project not found");
    const timeout = b.timeout ?? 300;
    if (typeof timeout !== "number" || !Number.isInteger(timeout) || timeout < MIN_TIMEOUT_S || timeout > MAX_TIMEOUT_S) {
      return error(res, 400, "Bad Request", "body/timeout must be >= 60 and <= 21600");
    }
    const metadata = b.userMetadata;
    if (metadata !== undefined && (typeof metadata !== "object" || metadata === null || Object.keys(metadata).some((k) => k.includes(".")))) {
      return error(res, 400, "Bad Request", "userMetadata keys may not contain '.'");
    }
    const fault = this.createFault;
    this.createFault = "none";
    const id = randomUUID();
    const now = new Date();
    const session: Session = {
      id,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
      startedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + timeout * 1000).toISOString(),
      keepAlive: b.keepAlive === true,
      projectId: this.#options.projectId,
      proxyBytes: 0,
      region: "us-west-2",
      status: "PENDING",
      ...(metadata ? { userMetadata: metadata as Record<string, unknown> } : {}),
    };
    const held: Held = { session };
    this.sessions.set(id, held);
    try {
      held.browser = await startChromium(`${this.#options.prefix}-${id.slice(0, 12)}`, this.#image, { [FAKE_LABEL]: this.#run });
    } catch {
      session.status = "ERROR";
      session.endedAt = new Date().toISOString();
      return error(res, 500, "Internal Server Error", "the browser did not start");
    }
    if (session.status !== "PENDING") {
      // Released while it started: the container goes with it.
      await removeChromium(held.browser.container);
      return error(res, 500, "Internal Server Error", "the session ended while it started");
    }
    session.status = "RUNNING";
    held.timer = setTimeout(() => void this.#end(held, "TIMED_OUT"), timeout * this.timeScale);
    if (this.createDelayMs > 0) await new Promise((r) => setTimeout(r, this.createDelayMs));
    if (fault === "drop-reply") return void res.socket?.destroy();
    if (fault === "answer-500") return error(res, 500, "Internal Server Error", "upstream failed");
    if (fault === "answer-no-body") return void (res.writeHead(201, { "content-type": "application/json" }), res.end());
    send(res, 201, { ...session, connectUrl: this.#connectUrl(id), seleniumRemoteUrl: `${this.apiUrl}/webdriver`, signingKey: this.#sign(`cdp:${id}`) });
  }

  #retrieved(held: Held) {
    const ended = held.session.status !== "RUNNING" && held.session.status !== "PENDING";
    return ended ? held.session : { ...held.session, connectUrl: this.#connectUrl(held.session.id) };
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
    const sessions = [...this.sessions.values()]
      .map((h) => h.session)
      .filter((s) => s.projectId === this.#options.projectId && (!status || s.status === status) && (!match || match(s)));
    send(res, 200, sessions);
  }

  #debug(held: Held, res: http.ServerResponse): void {
    const { id } = held.session;
    if (!held.browser || held.session.status !== "RUNNING") return error(res, 404, "Not Found", "Session is not running");
    const live = `${this.apiUrl}/live/${id}?token=${this.#sign(`live:${id}`)}`;
    send(res, 200, {
      debuggerFullscreenUrl: live,
      debuggerUrl: live,
      wsUrl: this.#connectUrl(id),
      pages: [],
    });
  }

  async #update(held: Held, body: unknown, res: http.ServerResponse): Promise<void> {
    const b = (body ?? {}) as { status?: unknown };
    if (b.status !== "REQUEST_RELEASE") return error(res, 400, "Bad Request", "body/status must be equal to constant");
    if (held.session.status === "RUNNING" || held.session.status === "PENDING") await this.#end(held, "COMPLETED");
    send(res, 200, held.session);
  }

  async #end(held: Held, status: Status): Promise<void> {
    clearTimeout(held.timer);
    const wasStarting = held.session.status === "PENDING";
    held.session.status = status;
    held.session.endedAt = held.session.updatedAt = new Date().toISOString();
    // A session still starting loses its container when its start lands (#create).
    if (held.browser && !wasStarting) await removeChromium(held.browser.container);
  }

  async #live(id: string, frame: boolean, token: string | null, res: http.ServerResponse): Promise<void> {
    const held = this.sessions.get(id);
    if (!held || !this.#signed(`live:${id}`, token)) return error(res, 401, "Unauthorized", "Invalid live view token");
    if (!held.browser || held.session.status !== "RUNNING") return error(res, 404, "Not Found", "Session is not running");
    if (frame) {
      const jpeg = await screenshot(held.browser);
      res.writeHead(200, { "content-type": "image/jpeg", "cache-control": "no-store" });
      return void res.end(jpeg);
    }
    const src = `/live/${id}/frame.jpg?token=${token}`;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(
      `<!doctype html><title>Live view</title><body style="margin:0;background:#000"><img id="f" src="${src}" style="width:100%">` +
        `<script>setInterval(()=>{document.getElementById("f").src="${src}&t="+Date.now()},500)</script></body>`,
    );
  }

  #upgrade(req: http.IncomingMessage, socket: import("node:stream").Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", this.apiUrl);
    const id = url.searchParams.get("sessionId") ?? "";
    const held = this.sessions.get(id);
    const refuse = (status: number, words: string) => {
      socket.end(`HTTP/1.1 ${status} ${words}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    };
    if (url.pathname !== "/connect" || !this.#signed(`cdp:${id}`, url.searchParams.get("signingKey"))) return refuse(401, "Unauthorized");
    if (!held?.browser || held.session.status !== "RUNNING") return refuse(410, "Gone");
    relay(req, socket, head, held.browser);
  }
}

class BadBody extends Error {}

async function readJson(req: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString("utf8");
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new BadBody("body is not JSON");
  }
}

function send(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Browserbase's error shape: { statusCode, error, message }. */
function error(res: http.ServerResponse, status: number, name: string, message: string): void {
  send(res, status, { statusCode: status, error: name, message });
}
