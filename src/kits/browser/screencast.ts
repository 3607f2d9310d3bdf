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
import { fail, ok } from "../../daemon/result.js";
import type { ComputerProvider, ScreenFrame, WatchHandlers } from "../../contract/provider.js";
import type { LiveView } from "../../contract/watch.js";
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
    const { signal } = options;
    const { maxWidth, quality } = options;
    if (maxWidth !== undefined && !(Number.isInteger(maxWidth) && maxWidth >= 1))
      return fail("invalid", "a watch's maxWidth is a whole number of pixels, at least 1", { field: "maxWidth" });
    if (quality !== undefined && !(Number.isInteger(quality) && quality >= 1 && quality <= 100))
      return fail("invalid", "a watch's quality is a JPEG quality from 1 to 100", { field: "quality" });
    const connected = await provider.connect(ref, signal ? { signal } : {});
    if (!connected.ok) return fail(connected.error.code, redactWords(connected.error.message));
    const url = connected.value.cdp?.url;
    // The connection's client is the vendor's reads alone: only its CDP URL is used.
    await connected.value.close();
    if (!url) return fail("unsupported", `${ref.name} has no CDP target, so it has no live view`);
    let cdp: Cdp;
    try {
      cdp = await openCdp(url, { timeoutMs: SCREENCAST_CALL_MS, maxMessageBytes: MAX_MESSAGE_BYTES, ...(signal ? { signal } : {}) });
    } catch (error) {
      return fail(signal?.aborted ? "aborted" : "unreachable", redactWords(`${ref.name}'s live view: ${(error as Error).message}`));
    }
    const castParams = { format: "jpeg", quality: quality ?? DEFAULT_QUALITY, maxWidth: maxWidth ?? DEFAULT_MAX_WIDTH, everyNthFrame: 1 };
    /** The page shown: its target and the session its frames come on. */
    let shown: { target: string; session: string };
    /** Every page known, oldest first (those open at the start in CDP's order, which is not by age): a page is followed once, when it is opened, and the newest one left is shown when the page shown closes. */
    const known: string[] = [];
    try {
      // Discovery first: a page opened from here on is told as Target.targetCreated.
      await cdp.send("Target.setDiscoverTargets", { discover: true });
      const pages = await pagesOf(cdp);
      if (pages.length === 0) {
        cdp.close();
        return fail("unsupported", `${ref.name}'s live view: the browser has no page open, so there is nothing to show`);
      }
      known.push(...[...pages].reverse());
      shown = { target: pages[0]!, session: await attachPage(cdp, pages[0]!) };
    } catch (error) {
      cdp.close();
      return fail(signal?.aborted ? "aborted" : "unreachable", redactWords(`${ref.name}'s live view: ${(error as Error).message}`));
    }

    let ended = false;
    let seq = 0;
    /** The frame the caller holds (its ack not given yet), and the newest one come since. */
    let out: Cast | undefined;
    let waiting: Cast | undefined;
    const stop = () => {
      if (ended) return;
      ended = true;
      cdp.close();
    };
    const end = (error: Ended) => {
      if (ended) return;
      stop();
      handlers.ended({ code: error.code, message: redactWords(error.message) });
    };
    const ackCast = (cast: Cast) => void cdp.send("Page.screencastFrameAck", { sessionId: cast.ack }, cast.session).catch(() => undefined);
    const give = (cast: Cast) => {
      const frame = frameOf(cast, ++seq);
      if (typeof frame === "string") return end({ code: "unreachable", message: `${ref.name}'s live view: ${frame}` });
      out = cast;
      let acked = false;
      handlers.frame(frame, () => {
        if (acked || ended) return;
        acked = true;
        out = undefined;
        ackCast(cast);
        const next = waiting;
        waiting = undefined;
        if (next) give(next);
      });
    };
    // Casts a page, its frames taken from the moment it is asked to cast; the old page let go once
    // the new one casts, so frames keep coming. False when the page could not be cast (closed).
    const castPage = async (to: string): Promise<boolean> => {
      const from = shown;
      let session: string;
      try {
        session = await attachPage(cdp, to);
      } catch {
        return false;
      }
      shown = { target: to, session };
      try {
        await cdp.send("Page.startScreencast", castParams, session);
      } catch {
        shown = from;
        void cdp.send("Target.detachFromTarget", { sessionId: session }).catch(() => undefined);
        return false;
      }
      // Waiting frames of the old page are passed over; the one the caller holds is acked by it.
      if (waiting && waiting.session === from.session) (ackCast(waiting), (waiting = undefined));
      void cdp.send("Target.detachFromTarget", { sessionId: from.session }).catch(() => undefined);
      return true;
    };
    // The page shown closed: the newest page left (one closing as it is tried gives way to the next).
    const newestLeft = async () => {
      const closed = shown.target;
      for (let round = 0; round < 3; round++) {
        const open = new Set((await pagesOf(cdp)).filter((page) => page !== closed));
        if (open.size === 0) return end({ code: "gone", message: `${ref.name}'s last page was closed, so its live view has nothing to show` });
        const newestFirst = [...[...known].reverse().filter((page) => open.has(page)), ...[...open].filter((page) => !known.includes(page))];
        for (const page of newestFirst) if (ended || (await castPage(page))) return;
      }
      end({ code: "unreachable", message: `${ref.name}'s live view: none of the browser's pages could be shown` });
    };
    // One move at a time, in the order asked; a page that closed as it opened (a popup gone at once)
    // leaves the page shown as it is.
    let moving = Promise.resolve();
    const show = (move: () => Promise<unknown>) => {
      moving = moving
        .then(() => (ended ? undefined : move()))
        .then(
          () => undefined,
          (error: Error) => end({ code: "unreachable", message: `${ref.name}'s live view: ${error.message}` }),
        );
    };
    cdp.listen({
      event(event: CdpEvent) {
        if (ended) return;
        if (event.method === "Target.targetCreated" && event.sessionId === undefined) {
          const info = event.params.targetInfo as { targetId?: unknown; type?: unknown } | undefined;
          if (info?.type !== "page" || typeof info.targetId !== "string" || known.includes(info.targetId)) return;
          known.push(info.targetId);
          return show(() => castPage(info.targetId as string));
        }
        if (event.method === "Target.detachedFromTarget" && event.params.sessionId === shown.session) return show(newestLeft);
        if (event.method !== "Page.screencastFrame" || event.sessionId !== shown.session) return;
        const cast = castOf(event.params, event.sessionId);
        if (typeof cast === "string") return end({ code: "unreachable", message: `${ref.name}'s live view: ${cast}` });
        if (!out) return give(cast);
        // Only the newest waits: one passed over is acked at once, so Chromium keeps casting.
        if (waiting) ackCast(waiting);
        waiting = cast;
      },
      closed(why) {
        end({ code: "gone", message: `${ref.name}'s live view ended: ${why} (the browser has gone, or its vendor closed the connection)` });
      },
    });
    signal?.addEventListener("abort", stop, { once: true });
    try {
      await cdp.send("Page.startScreencast", castParams, shown.session);
    } catch (error) {
      stop();
      return fail(signal?.aborted ? "aborted" : "unreachable", redactWords(`${ref.name}'s live view: ${(error as Error).message}`));
    }
    return ok({
      async input() {
        if (ended) return fail("closed", "the watch has ended: its input goes no further; open a new watch");
        return fail("unsupported", `a browser's live view takes no input: drive ${ref.name} over CDP (the connection's cdp.url)`);
      },
      async close() {
        stop();
      },
    });
  };
}
