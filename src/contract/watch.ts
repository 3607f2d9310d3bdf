// The live view's seam, as a provider offers it: watch(ref, handlers, options) gives a computer's
// frames, paced by the caller's ack, and input on the watch's own connection (the types are
// provider.ts's: WatchHandlers, ScreenFrame, ScreenWatch). A provider whose computers run computerd
// takes daemonLiveView over its own connect(), so every such vendor has the same bounds and
// redaction (src/daemon/screen-watch.ts); one with a live view of its own (a browser's, a phone's)
// implements LiveView itself and keeps its rules: frames whole and bounded, errors redacted.
import type { CallOptions } from "../daemon/client.js";
import { daemonWatch } from "../daemon/screen-watch.js";
import type { ComputerProvider, ComputerRef, ScreenWatch, WatchHandlers } from "./provider.js";
import type { Result } from "../daemon/result.js";

/** What a watch takes beside the caller's signal: the frames' width (default 1280) and JPEG quality (default 60). */
export type LiveViewOptions = CallOptions & { maxWidth?: number; quality?: number };

/** A provider's watch(). */
export type LiveView = (ref: ComputerRef, handlers: WatchHandlers, options?: LiveViewOptions) => Promise<Result<ScreenWatch>>;

/**
 * watch() through computerd: a connection of the watch's own from the provider's connect() (so
 * its checks hold: a computer gone, paused or not the provider's is refused as connect refuses
 * it), unsupported when its hello declares no screen.
 */
export function daemonLiveView(provider: Pick<ComputerProvider, "connect">): LiveView {
  return (ref, handlers, options = {}) => daemonWatch((signal) => provider.connect(ref, signal ? { signal } : {}), handlers, options);
}
