// What the browser vendors' fakes share (fake-browserbase.ts, fake-kernel.ts): a loopback HTTP
// server, each browser a real Chromium container (fake-chromium.ts) made and removed here, its CDP
// behind a signed URL this server checks (a wrong or missing key is 401) and piped raw to the
// container, its live view a page of the browser's screencast behind a signed token, the faults
// a test sets on the next create, and close() removing every container of the fake's run.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { browserImage, type Chromium, relay, removeChromium, removeLabelled, Screencast, startChromium } from "./fake-chromium.js";

/** What a test makes the next create do: answer whole (default), lose its reply, answer 500, or answer 2xx with no body. */
export type CreateFault = "none" | "drop-reply" | "answer-500" | "answer-no-body";

export interface FakeVendorOptions {
  apiKey: string;
  /** The browser image; default the recipe's, built once. */
  image?: string;
  /** Docker names start with it. */
  prefix?: string;
  /** The value of the fake's label on every container (default made up): a caller removes a run's leftovers by it. */
  run?: string;
}

/** One browser as a fake holds it: its container once started, and whether the vendor still runs it. */
export interface FakeBrowser {
  id: string;
  browser?: Chromium;
  timer?: NodeJS.Timeout;
  /** The live view's screencast, started when the live view is first asked for. */
  screencast?: Promise<Screencast>;
  running(): boolean;
}

export abstract class FakeBrowserVendor<B extends FakeBrowser> {
  readonly browsers = new Map<string, B>();
  /** Every create request the fake was sent, in order (bodies as sent). */
  readonly creates: unknown[] = [];
  /** The next create's fault, reset once used. */
  createFault: CreateFault = "none";
  /** Holds each create this long before it answers (a create cut off during the POST). */
  createDelayMs = 0;
  /** A browser's timeout in seconds becomes this many ms each (1000; a test shortens it). */
  timeScale = 1000;
  protected readonly apiKey: string;
  readonly #secret = randomBytes(32);
  readonly #server: http.Server;
  readonly #label: string;
  readonly #prefix: string;
  #image: string;

  constructor(options: FakeVendorOptions, label: string) {
    this.apiKey = options.apiKey;
    this.#image = options.image ?? "";
    this.#prefix = options.prefix ?? `fakebrowser-${process.pid}`;
    this.#label = `${label}=${options.run ?? randomBytes(4).toString("hex")}`;
    this.#server = http.createServer((req, res) => void this.#serve(req, res));
    this.#server.on("upgrade", (req, socket, head) => this.#upgrade(req, socket, head));
  }

  /** The image made ready and the server listening on the loopback. */
  protected async listen(): Promise<void> {
    this.#image ||= await browserImage();
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
  }

  get apiUrl(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** The container of a browser, to reach its CDP directly (the bench's anchor). */
  browserOf(id: string): Chromium | undefined {
    return this.browsers.get(id)?.browser;
  }

  async close(): Promise<void> {
    for (const held of this.browsers.values()) clearTimeout(held.timer);
    await new Promise<void>((resolve) => {
      this.#server.close(() => resolve());
      this.#server.closeAllConnections();
    });
    await removeLabelled(this.#label);
  }

  /** The vendor's API: every request but the live view's and the CDP upgrade. */
  protected abstract route(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void>;

  /** A browser's container started (its name from the fake's prefix and the browser's id). */
  protected start(id: string): Promise<Chromium> {
    return startChromium(`${this.#prefix}-${id.slice(0, 12)}`, this.#image, { [this.#label.split("=")[0]!]: this.#label.split("=")[1]! });
  }

  protected stop(held: B): Promise<void> {
    clearTimeout(held.timer);
    void held.screencast?.then(
      (cast) => cast.stop(),
      () => undefined,
    );
    return held.browser ? removeChromium(held.browser.container) : Promise.resolve();
  }

  /** The signed CDP URL of a browser, as the vendor hands it out. */
  protected cdpUrl(id: string): string {
    return `${this.apiUrl.replace(/^http/, "ws")}/connect?sessionId=${id}&signingKey=${this.#sign(`cdp:${id}`)}`;
  }

  /** The live view's URL of a browser. */
  protected liveUrl(id: string): string {
    return `${this.apiUrl}/live/${id}?token=${this.#sign(`live:${id}`)}`;
  }

  /** A browser was used (a CDP connection, its live view): a vendor with an idle timeout starts it again. */
  protected touched(_held: B): void {}

  /** The next create's fault, taken. */
  protected takeFault(): CreateFault {
    const fault = this.createFault;
    this.createFault = "none";
    return fault;
  }

  /** A create's answer with its fault: held createDelayMs, then whole, lost, a 500 or an empty 2xx. */
  protected async answerCreate(res: http.ServerResponse, fault: CreateFault, status: number, body: unknown): Promise<void> {
    if (this.createDelayMs > 0) await new Promise((r) => setTimeout(r, this.createDelayMs));
    if (fault === "drop-reply") return void res.socket?.destroy();
    if (fault === "answer-500") return send(res, 500, { message: "upstream failed" });
    if (fault === "answer-no-body") return void (res.writeHead(status, { "content-type": "application/json" }), res.end());
    send(res, status, body);
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

  async #serve(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", this.apiUrl);
    try {
      const live = /^\/live\/([\w-]+)(\/frame\.jpg)?$/.exec(url.pathname);
      if (live && req.method === "GET") return await this.#live(live[1]!, Boolean(live[2]), url.searchParams.get("token"), res);
      await this.route(req, res, url);
    } catch (e) {
      if (e instanceof BadBody) return send(res, 400, { message: e.message });
      send(res, 500, { message: "the fake failed" });
    }
  }

  async #live(id: string, frame: boolean, token: string | null, res: http.ServerResponse): Promise<void> {
    const held = this.browsers.get(id);
    if (!held || !this.#signed(`live:${id}`, token)) return send(res, 401, { message: "invalid live view token" });
    if (!held.browser || !held.running()) return send(res, 404, { message: "the browser is not running" });
    this.touched(held);
    if (frame) {
      held.screencast ??= Screencast.start(held.browser);
      const jpeg = await (await held.screencast).frame();
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

  #upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", this.apiUrl);
    const id = url.searchParams.get("sessionId") ?? "";
    const held = this.browsers.get(id);
    const refuse = (status: number, words: string) => void socket.end(`HTTP/1.1 ${status} ${words}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    if (url.pathname !== "/connect" || !this.#signed(`cdp:${id}`, url.searchParams.get("signingKey"))) return refuse(401, "Unauthorized");
    if (!held?.browser || !held.running()) return refuse(410, "Gone");
    this.touched(held);
    relay(req, socket, head, held.browser);
  }
}

export class BadBody extends Error {}

export async function readJson(req: http.IncomingMessage): Promise<unknown> {
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

export function send(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
