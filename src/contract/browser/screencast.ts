// A browser's live view (its watch()): CDP's screencast of the browser's first page, on a CDP
// connection of the watch's own to the URL connect gives. The caller paces it: a frame's
// Page.screencastFrameAck goes to Chromium only when the caller acks it, so the next frame comes
// then. Frames are whole JPEGs, each at most MAX_FRAME_BYTES (the daemon's watch's bound), their
// width and height the page's viewport in CSS pixels (CDP's input space); every error is redacted.
// A browser takes no input here: it is driven over CDP.
import { MAX_FRAME_BYTES } from "../../daemon/screen-watch.js";
import { jpegSize } from "../jpeg.js";
import { redactWords } from "../redact.js";
import { fail, ok } from "../result.js";
import type { ComputerProvider, ScreenFrame, WatchHandlers } from "../provider.js";
import type { LiveView } from "../watch.js";
import { type Cdp, type CdpEvent, openCdp } from "./cdp.js";

/** The bound of the watch's opening and of each CDP call. */
export const SCREENCAST_CALL_MS = 15_000;
/** The largest CDP message taken: a frame's base64 at MAX_FRAME_BYTES, and room for its metadata. */
export const MAX_MESSAGE_BYTES = Math.ceil((MAX_FRAME_BYTES * 4) / 3) + (64 << 10);

const DEFAULT_MAX_WIDTH = 1280;
const DEFAULT_QUALITY = 60;

type Ended = Parameters<WatchHandlers["ended"]>[0];

/** One Page.screencastFrame as the watch holds it until the caller takes it. */
interface Cast {
  data: string;
  ack: number;
  width: number;
  height: number;
}

/** A screencastFrame's params, or why they are not one. */
function castOf(params: Record<string, unknown>): Cast | string {
  const { data, sessionId, metadata } = params as { data?: unknown; sessionId?: unknown; metadata?: { deviceWidth?: unknown; deviceHeight?: unknown } };
  const width = Math.round(Number(metadata?.deviceWidth));
  const height = Math.round(Number(metadata?.deviceHeight));
  if (typeof data !== "string" || typeof sessionId !== "number" || !(width > 0) || !(height > 0))
    return "a screencast frame came without its data, ack id or viewport";
  return { data, ack: sessionId, width, height };
}

/** A frame's bytes checked whole and bounded: its JPEG walked to its end for its size. */
export function frameOf(cast: Cast, seq: number): ScreenFrame | string {
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

/** The first page target, attached flat: its session. */
async function firstPage(cdp: Cdp): Promise<{ sessionId: string } | string> {
  const { targetInfos } = (await cdp.send("Target.getTargets")) as { targetInfos?: Array<{ targetId: string; type: string }> };
  const page = (targetInfos ?? []).find((t) => t.type === "page");
  if (!page) return "the browser has no page open, so there is nothing to show";
  const { sessionId } = (await cdp.send("Target.attachToTarget", { targetId: page.targetId, flatten: true })) as { sessionId?: string };
  return typeof sessionId === "string" ? { sessionId } : "CDP attached to the page without a session";
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
    let page;
    try {
      page = await firstPage(cdp);
      if (typeof page === "string") {
        cdp.close();
        return fail("unsupported", `${ref.name}'s live view: ${page}`);
      }
    } catch (error) {
      cdp.close();
      return fail(signal?.aborted ? "aborted" : "unreachable", redactWords(`${ref.name}'s live view: ${(error as Error).message}`));
    }
    const { sessionId } = page;

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
    const ackCast = (cast: Cast) => void cdp.send("Page.screencastFrameAck", { sessionId: cast.ack }, sessionId).catch(() => undefined);
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
    cdp.listen({
      event(event: CdpEvent) {
        if (ended || event.sessionId !== sessionId) {
          if (!ended && event.method === "Target.detachedFromTarget" && event.params.sessionId === sessionId)
            end({ code: "gone", message: `${ref.name}'s page that the live view showed was closed` });
          return;
        }
        if (event.method !== "Page.screencastFrame") return;
        const cast = castOf(event.params);
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
      await cdp.send(
        "Page.startScreencast",
        { format: "jpeg", quality: quality ?? DEFAULT_QUALITY, maxWidth: maxWidth ?? DEFAULT_MAX_WIDTH, everyNthFrame: 1 },
        sessionId,
      );
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
