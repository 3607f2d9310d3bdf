// A browser's live view (its watch()): CDP's screencast of the page the agent is on, on a CDP
// connection of the watch's own to the URL connect gives. It starts on the newest page (CDP lists
// pages newest first) and follows each page opened after it (a new tab or popup is where an agent
// went); when the page it shows closes, it goes to the newest page left, and ends only when none is. The caller paces
// it: a frame's Page.screencastFrameAck goes to Chromium only when the caller acks it, so the next
// frame comes then. Frames are whole JPEGs, each at most MAX_FRAME_BYTES (the daemon's watch's
// bound), their width and height the page's viewport in CSS pixels (CDP's input space); every error
// is redacted. A browser takes no input here: it is driven over CDP.
import { MAX_FRAME_BYTES } from "../../daemon/screen-watch.js";
import { jpegSize } from "../../contract/jpeg.js";
import { redactWords } from "../../daemon/redact.js";
import { fail, ok, type Result } from "../../daemon/result.js";
import type { ComputerProvider, ComputerRef, ScreenFrame, ScreenWatch, WatchHandlers } from "../../contract/provider.js";
import type { LiveView, LiveViewOptions } from "../../contract/watch.js";
import { type Cdp, type CdpEvent, openCdp } from "./cdp.js";

/** The bound of the watch's opening and of each CDP call. */
export const SCREENCAST_CALL_MS = 15_000;
/** The largest CDP message taken: a frame's base64 at MAX_FRAME_BYTES, and room for its metadata. */
export const MAX_MESSAGE_BYTES = Math.ceil((MAX_FRAME_BYTES * 4) / 3) + (64 << 10);

const DEFAULT_MAX_WIDTH = 1280;
const DEFAULT_QUALITY = 60;

type Ended = Parameters<WatchHandlers["ended"]>[0];

/** One Page.screencastFrame as the watch holds it until the caller takes it, and the page session it came on (its ack goes there). */
interface Cast {
  data: string;
  ack: number;
  width: number;
  height: number;
  session: string;
}

/** A screencastFrame's params, or why they are not one. */
function castOf(params: Record<string, unknown>, session: string): Cast | string {
  const { data, sessionId, metadata } = params as { data?: unknown; sessionId?: unknown; metadata?: { deviceWidth?: unknown; deviceHeight?: unknown } };
  const width = Math.round(Number(metadata?.deviceWidth));
  const height = Math.round(Number(metadata?.deviceHeight));
  if (typeof data !== "string" || typeof sessionId !== "number" || !(width > 0) || !(height > 0))
    return "a screencast frame came without its data, ack id or viewport";
  return { data, ack: sessionId, width, height, session };
}

/** A frame's bytes checked whole and bounded: its JPEG walked to its end for its size. */
export function frameOf(cast: Omit<Cast, "session">, seq: number): ScreenFrame | string {
  // base64's length bounds the bytes before any are decoded.
  if (Math.floor((cast.data.length * 3) / 4) > MAX_FRAME_BYTES) return `a frame ran past ${MAX_FRAME_BYTES} bytes`;
  const bytes = Buffer.from(cast.data, "base64");
  let size;
  try {
    size = jpegSize(bytes);
  } catch (error) {
    return `a frame is not a whole JPEG: ${(error as Error).message}`;
  }
  return { seq, format: "jpeg", bytes, width: cast.width, height: cast.height, frameWidth: size.width, frameHeight: size.height };
}

/** The browser's open pages, newest first, as CDP lists them. */
async function pagesOf(cdp: Cdp): Promise<string[]> {
  const { targetInfos } = (await cdp.send("Target.getTargets")) as { targetInfos?: Array<{ targetId: string; type: string }> };
  return (targetInfos ?? []).filter((t) => t.type === "page").map((t) => t.targetId);
}

/** A page target attached flat: its session. */
async function attachPage(cdp: Cdp, targetId: string): Promise<string> {
  const { sessionId } = (await cdp.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId?: string };
  if (typeof sessionId !== "string") throw new Error("CDP attached to the page without a session");
  return sessionId;
}

/**
 * watch() over CDP's screencast: a connection of the watch's own from the provider's connect() (so
 * its checks hold: a browser gone or not the provider's is refused as connect refuses it),
 * unsupported when it carries no CDP target or the browser has no page.
 */
export function cdpLiveView(provider: Pick<ComputerProvider, "connect">): LiveView {
  return async (ref, handlers, options = {}) => {
    const params = castParamsOf(options);
    if (!params.ok) return params;
    const opened = await openView(provider, ref, options.signal);
    if (!opened.ok) return opened;
    const { cdp, shown, known } = opened.value;
    return new Screencast(cdp, ref.name, handlers, params.value, shown, known).start(options.signal);
  };
}

/** Page.startScreencast's params. */
type CastParams = { format: "jpeg"; quality: number; maxWidth: number; everyNthFrame: 1 };

/** A page shown: its target and the session its frames come on. */
interface Shown {
  target: string;
  session: string;
}

/** The watch's options as the screencast's params, or the refusal of one. */
function castParamsOf({ maxWidth, quality }: LiveViewOptions): Result<CastParams> {
  if (maxWidth !== undefined && !(Number.isInteger(maxWidth) && maxWidth >= 1))
    return fail("invalid", "a watch's maxWidth is a whole number of pixels, at least 1", { field: "maxWidth" });
  if (quality !== undefined && !(Number.isInteger(quality) && quality >= 1 && quality <= 100))
    return fail("invalid", "a watch's quality is a JPEG quality from 1 to 100", { field: "quality" });
  return ok({ format: "jpeg", quality: quality ?? DEFAULT_QUALITY, maxWidth: maxWidth ?? DEFAULT_MAX_WIDTH, everyNthFrame: 1 });
}

/** A live view that could not be opened: aborted by the caller, else unreachable, in redacted words. */
function unopened(name: string, error: unknown, signal: AbortSignal | undefined): Result<never> {
  return fail(signal?.aborted ? "aborted" : "unreachable", redactWords(`${name}'s live view: ${(error as Error).message}`));
}

/**
 * The watch's own CDP connection to the URL connect gives, discovery on (a page opened from then
 * on is told as Target.targetCreated), and the newest page attached; with every page known,
 * oldest first (those open at the start in CDP's order, which is not by age).
 */
async function openView(
  provider: Pick<ComputerProvider, "connect">,
  ref: ComputerRef,
  signal: AbortSignal | undefined,
): Promise<Result<{ cdp: Cdp; shown: Shown; known: string[] }>> {
  const connected = await provider.connect(ref, signal ? { signal } : {});
  if (!connected.ok) return fail(connected.error.code, redactWords(connected.error.message));
  const url = connected.value.cdp?.url;
  if (!url) {
    await connected.value.close();
    return fail("unsupported", `${ref.name} has no CDP target, so it has no live view`);
  }
  // Only the CDP URL is used; the connection is held while the watch lives, as a URL served through it lives as long.
  let cdp: Cdp;
  try {
    const opened = await openCdp(url, { timeoutMs: SCREENCAST_CALL_MS, maxMessageBytes: MAX_MESSAGE_BYTES, ...(signal ? { signal } : {}) });
    cdp = { ...opened, close: () => (opened.close(), void connected.value.close()) };
  } catch (error) {
    await connected.value.close();
    return unopened(ref.name, error, signal);
  }
  try {
    await cdp.send("Target.setDiscoverTargets", { discover: true });
    const pages = await pagesOf(cdp);
    if (pages.length === 0) {
      cdp.close();
      return fail("unsupported", `${ref.name}'s live view: the browser has no page open, so there is nothing to show`);
    }
    const known = [...pages].reverse();
    return ok({ cdp, known, shown: { target: pages[0]!, session: await attachPage(cdp, pages[0]!) } });
  } catch (error) {
    cdp.close();
    return unopened(ref.name, error, signal);
  }
}

/**
 * One watch's screencast: the page shown, every page known (a page is followed once, when it is
 * opened, and the newest one left is shown when the page shown closes), the frame the caller
 * holds and the newest one come since.
 */
class Screencast {
  private readonly cdp: Cdp;
  private readonly name: string;
  private readonly handlers: WatchHandlers;
  private readonly params: CastParams;
  private shown: Shown;
  private readonly known: string[];
  private ended = false;
  private seq = 0;
  /** The frame the caller holds (its ack not given yet). */
  private out: Cast | undefined;
  /** The newest frame come since. */
  private waiting: Cast | undefined;
  /** The moves between pages, one at a time in the order asked. */
  private moving = Promise.resolve();

  constructor(cdp: Cdp, name: string, handlers: WatchHandlers, params: CastParams, shown: Shown, known: string[]) {
    this.cdp = cdp;
    this.name = name;
    this.handlers = handlers;
    this.params = params;
    this.shown = shown;
    this.known = known;
  }

  /** The page shown cast, the browser's events followed, and the watch given to the caller. */
  async start(signal: AbortSignal | undefined): Promise<Result<ScreenWatch>> {
    this.cdp.listen({
      event: (event) => this.told(event),
      closed: (why) =>
        this.end({ code: "gone", message: `${this.name}'s live view ended: ${why} (the browser has gone, or its vendor closed the connection)` }),
    });
    signal?.addEventListener("abort", () => this.stop(), { once: true });
    try {
      await this.cdp.send("Page.startScreencast", this.params, this.shown.session);
    } catch (error) {
      this.stop();
      return unopened(this.name, error, signal);
    }
    return ok({
      input: async () => {
        if (this.ended) return fail("closed", "the watch has ended: its input goes no further; open a new watch");
        return fail("unsupported", `a browser's live view takes no input: drive ${this.name} over CDP (the connection's cdp.url)`);
      },
      close: async () => this.stop(),
    });
  }

  /** A CDP event: a page opened is followed, the page shown closing moves to the newest left, a frame of the page shown is given or waits. */
  private told(event: CdpEvent): void {
    if (this.ended) return;
    if (event.method === "Target.targetCreated" && event.sessionId === undefined) {
      const info = event.params.targetInfo as { targetId?: unknown; type?: unknown } | undefined;
      if (info?.type !== "page" || typeof info.targetId !== "string" || this.known.includes(info.targetId)) return;
      const page = info.targetId;
      this.known.push(page);
      return this.show(() => this.castPage(page));
    }
    if (event.method === "Target.detachedFromTarget" && event.params.sessionId === this.shown.session) return this.show(() => this.newestLeft());
    if (event.method !== "Page.screencastFrame" || event.sessionId !== this.shown.session) return;
    const cast = castOf(event.params, event.sessionId);
    if (typeof cast === "string") return this.end({ code: "unreachable", message: `${this.name}'s live view: ${cast}` });
    if (!this.out) return this.give(cast);
    // Only the newest waits: one passed over is acked at once, so Chromium keeps casting.
    if (this.waiting) this.ack(this.waiting);
    this.waiting = cast;
  }

  /** A frame to the caller; its ack goes to Chromium when the caller acks it, and the frame waiting then follows. */
  private give(cast: Cast): void {
    const frame = frameOf(cast, ++this.seq);
    if (typeof frame === "string") return this.end({ code: "unreachable", message: `${this.name}'s live view: ${frame}` });
    this.out = cast;
    let acked = false;
    this.handlers.frame(frame, () => {
      if (acked || this.ended) return;
      acked = true;
      this.out = undefined;
      this.ack(cast);
      const next = this.waiting;
      this.waiting = undefined;
      if (next) this.give(next);
    });
  }

  private ack(cast: Cast): void {
    void this.cdp.send("Page.screencastFrameAck", { sessionId: cast.ack }, cast.session).catch(() => undefined);
  }

  /**
   * Casts a page, its frames taken from the moment it is asked to cast; the old page let go once
   * the new one casts, so frames keep coming. False when the page could not be cast (closed).
   */
  private async castPage(to: string): Promise<boolean> {
    const from = this.shown;
    let session: string;
    try {
      session = await attachPage(this.cdp, to);
    } catch {
      return false;
    }
    this.shown = { target: to, session };
    try {
      await this.cdp.send("Page.startScreencast", this.params, session);
    } catch {
      this.shown = from;
      void this.cdp.send("Target.detachFromTarget", { sessionId: session }).catch(() => undefined);
      return false;
    }
    // Waiting frames of the old page are passed over; the one the caller holds is acked by it.
    if (this.waiting && this.waiting.session === from.session) {
      this.ack(this.waiting);
      this.waiting = undefined;
    }
    void this.cdp.send("Target.detachFromTarget", { sessionId: from.session }).catch(() => undefined);
    return true;
  }

  /** The page shown closed: the newest page left (one closing as it is tried gives way to the next). */
  private async newestLeft(): Promise<void> {
    const closed = this.shown.target;
    for (let round = 0; round < 3; round++) {
      const open = new Set((await pagesOf(this.cdp)).filter((page) => page !== closed));
      if (open.size === 0) return this.end({ code: "gone", message: `${this.name}'s last page was closed, so its live view has nothing to show` });
      const newestFirst = [...[...this.known].reverse().filter((page) => open.has(page)), ...[...open].filter((page) => !this.known.includes(page))];
      for (const page of newestFirst) if (this.ended || (await this.castPage(page))) return;
    }
    this.end({ code: "unreachable", message: `${this.name}'s live view: none of the browser's pages could be shown` });
  }

  /** A move after those asked before it; a page that closed as it opened (a popup gone at once) leaves the page shown as it is. */
  private show(move: () => Promise<unknown>): void {
    this.moving = this.moving
      .then(() => (this.ended ? undefined : move()))
      .then(
        () => undefined,
        (error: Error) => this.end({ code: "unreachable", message: `${this.name}'s live view: ${error.message}` }),
      );
  }

  /** The watch ended for the caller, with why. */
  private end(error: Ended): void {
    if (this.ended) return;
    this.stop();
    this.handlers.ended({ code: error.code, message: redactWords(error.message) });
  }

  private stop(): void {
    if (this.ended) return;
    this.ended = true;
    this.cdp.close();
  }
}
