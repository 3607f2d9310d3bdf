// The live view's seam: watchScreen pulls a computer's frames over one connection, paced by the
// caller (each next() is the ack of the frame before), and sends input on the same connection;
// daemonWatch adapts it to a provider's watch(ref, handlers): frames to handlers.frame, the end
// to handlers.ended once. Every failure is a ScreenWatchError whose words are redacted.
import { CallError, type Connection } from "./client.js";
import type { Action, InputActionsResult, Point } from "./protocol.js";
import { MAX_WATCH_WAIT_MS } from "./protocol.js";
import { redactWords } from "./redact.js";
import { fail, ok, type Result } from "./result.js";

export interface ScreenFrame {
  seq: number;
  format: "jpeg" | "png";
  bytes: Uint8Array;
  width: number;
  height: number;
  frameWidth: number;
  frameHeight: number;
  cursor?: Point;
}

export interface WatchHandlers {
  frame(frame: ScreenFrame, ack: () => void): void;
  ended(error: { code: "gone" | "unreachable" | "refused" | "unsupported"; message: string }): void;
}

export interface ScreenWatch {
  input(actions: Action[]): Promise<Result<InputActionsResult>>;
  close(): Promise<void>;
}

/** A frame is never read past this many bytes. */
export const MAX_FRAME_BYTES = 64 << 20;
/** Inputs in flight on one watch; one more is refused as limit. */
export const MAX_INPUTS_IN_FLIGHT = 8;

export type ScreenWatchCode = "gone" | "unreachable" | "refused" | "unsupported" | "closed" | "limit" | "invalid";

export class ScreenWatchError extends Error {
  override readonly name = "ScreenWatchError";
  constructor(
    readonly code: ScreenWatchCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(redactWords(message), options);
  }
}

export interface WatchOptions {
  maxWidth?: number;
  quality?: number;
  signal?: AbortSignal;
}

export interface ScreenWatchSession {
  /** The next whole frame: the first at once, then the next once the screen or the pointer changed. */
  next(): Promise<ScreenFrame>;
  /** input.actions on the watch's connection. */
  act(actions: Action[]): Promise<InputActionsResult>;
  /** Lets the connection go; a next() or act() in flight ends as closed. */
  close(): Promise<void>;
}

/** A daemon's failure as the watch says it: a connection that ended is the computer gone. */
function asWatchError(error: unknown, what: string): ScreenWatchError {
  if (error instanceof ScreenWatchError) return error;
  if (error instanceof CallError) {
    const code: ScreenWatchCode =
      error.kind === "closed"
        ? "gone"
        : error.kind === "unsupported"
          ? "unsupported"
          : error.kind === "limit"
            ? "limit"
            : error.kind === "invalid"
              ? "invalid"
              : "unreachable";
    return new ScreenWatchError(code, `${what}: ${error.message}`, { cause: error });
  }
  return new ScreenWatchError("unreachable", `${what}: ${String(error)}`, { cause: error });
}

/** The watch over an open connection whose hello declares the screen. */
export function watchScreen(connection: Connection, options: WatchOptions = {}): ScreenWatchSession {
  const { client } = connection;
  let after = 0;
  let closed = false;
  let inFlight = 0;
  const signal = options.signal;
  const call = { ...(signal ? { signal } : {}) };

  async function readWhole(first: Uint8Array, id: string | null | undefined, eof: boolean): Promise<Uint8Array> {
    const parts = [first];
    let size = first.length;
    while (!eof) {
      if (!id) throw new ScreenWatchError("invalid", "a frame that is not whole named no id to read the rest by");
      const more = await client.call("screen.read", { id, offset: size }, call);
      const bytes = Buffer.from(more.data, "base64");
      size += bytes.length;
      if (size > MAX_FRAME_BYTES) throw new ScreenWatchError("limit", `a frame ran past ${MAX_FRAME_BYTES} bytes; it was not read further`);
      if (bytes.length === 0 && !more.eof) throw new ScreenWatchError("invalid", "screen.read gave no bytes and no end");
      parts.push(bytes);
      eof = more.eof;
    }
    return Buffer.concat(parts);
  }

  return {
    async next() {
      for (;;) {
        if (closed) throw new ScreenWatchError("closed", "the watch was closed");
        let frame;
        try {
          frame = await client.call(
            "screen.watch",
            {
              after,
              waitMs: MAX_WATCH_WAIT_MS,
              ...(options.maxWidth ? { maxWidth: options.maxWidth } : {}),
              ...(options.quality ? { quality: options.quality } : {}),
            },
            call,
          );
        } catch (error) {
          throw closed ? new ScreenWatchError("closed", "the watch was closed") : asWatchError(error, "the screen's watch");
        }
        if (!frame.changed) continue;
        const { width, height, frameWidth, frameHeight, format } = frame;
        if (!width || !height || !frameWidth || !frameHeight || !format)
          throw new ScreenWatchError("invalid", "a changed frame came without its format and sizes");
        let bytes: Uint8Array;
        try {
          bytes = await readWhole(Buffer.from(frame.data ?? "", "base64"), frame.id, frame.eof ?? false);
        } catch (error) {
          throw asWatchError(error, "reading a frame");
        }
        after = frame.seq;
        return { seq: frame.seq, format, bytes, width, height, frameWidth, frameHeight, ...(frame.cursor ? { cursor: frame.cursor } : {}) };
      }
    },
    async act(actions) {
      if (closed) throw new ScreenWatchError("closed", "the watch was closed: input goes no further");
      if (inFlight >= MAX_INPUTS_IN_FLIGHT)
        throw new ScreenWatchError("limit", `at most ${MAX_INPUTS_IN_FLIGHT} inputs are in flight on a watch; wait for one to answer`);
      inFlight++;
      try {
        const result = await client.call("input.actions", { actions }, call);
        return result.failed ? { ...result, failed: { ...result.failed, message: redactWords(result.failed.message) } } : result;
      } catch (error) {
        throw asWatchError(error, "input on the watch");
      } finally {
        inFlight--;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await connection.close();
    },
  };
}

/**
 * The one watch() behind every provider's: a connection of its own (connect), refused as
 * unsupported when its hello declares no screen, its frames to handlers.frame one at a time
 * (the next asked for once ack() is called), and handlers.ended once if the computer goes.
 * close() and the signal end it with no ended().
 */
export async function daemonWatch(
  connect: (signal?: AbortSignal) => Promise<Result<Connection>>,
  handlers: WatchHandlers,
  options: WatchOptions = {},
): Promise<Result<ScreenWatch>> {
  const connected = await connect(options.signal);
  if (!connected.ok) return fail(connected.error.code, redactWords(connected.error.message));
  const connection = connected.value;
  if (!connection.hello.groups.includes("screen")) {
    await connection.close();
    return fail("unsupported", `this computer's daemon declares no screen (its kind is ${connection.hello.kind}), so it has no live view`);
  }
  const session = watchScreen(connection, options);
  let ended = false;
  const stop = async () => {
    ended = true;
    await session.close();
  };
  options.signal?.addEventListener("abort", () => void stop(), { once: true });
  void (async () => {
    while (!ended) {
      let frame: ScreenFrame;
      try {
        frame = await session.next();
      } catch (error) {
        if (ended) return;
        ended = true;
        await session.close();
        const e = error instanceof ScreenWatchError ? error : asWatchError(error, "the watch");
        const code = e.code === "gone" || e.code === "unsupported" || e.code === "refused" ? e.code : "unreachable";
        handlers.ended({ code, message: e.message });
        return;
      }
      if (ended) return;
      await new Promise<void>((resolve) => {
        let acked = false;
        handlers.frame(frame, () => {
          if (!acked) ((acked = true), resolve());
        });
      });
    }
  })();
  return ok({
    async input(actions: Action[]): Promise<Result<InputActionsResult>> {
      if (ended) return fail("closed", "the watch has ended: its input goes no further; open a new watch");
      try {
        return ok(await session.act(actions));
      } catch (error) {
        const e = error instanceof ScreenWatchError ? error : asWatchError(error, "input on the watch");
        return fail(
          e.code === "limit" ? "limit" : e.code === "closed" ? "closed" : e.code === "gone" ? "gone" : e.code === "unsupported" ? "unsupported" : "failed",
          e.message,
        );
      }
    },
    close: stop,
  });
}
