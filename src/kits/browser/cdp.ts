// The least CDP client a browser computer needs (its live view, the conformance cases): one
// WebSocket to a browser's CDP target, calls by id with an optional flattened session, each
// bounded and under a signal, events to one listener, every message bounded in size. Its errors
// never hold the URL (a signed URL is a key).
import WebSocket from "ws";

/** One CDP event: its method, params, and the flattened session it came on (none: the browser's own). */
export interface CdpEvent {
  method: string;
  params: Record<string, unknown>;
  sessionId?: string;
}

export interface Cdp {
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>>;
  /** Every event from here on; and the end, once, with why (the close is the caller's own when it called close()). */
  listen(on: { event(event: CdpEvent): void; closed(why: string): void }): void;
  close(): void;
}

export interface CdpOptions {
  signal?: AbortSignal;
  /** The bound of the opening and of each call (default 15 s). */
  timeoutMs?: number;
  /** The largest message taken; a larger one ends the connection (default ws's 100 MiB). */
  maxMessageBytes?: number;
}

/** Opens a CDP connection; rejects in words with no URL when the target refuses it or does not answer in time. */
export function openCdp(url: string, options: CdpOptions = {}): Promise<Cdp> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, {
      handshakeTimeout: timeoutMs,
      perMessageDeflate: false,
      ...(options.maxMessageBytes ? { maxPayload: options.maxMessageBytes } : {}),
    });
    const pending = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
    let next = 0;
    let listener: Parameters<Cdp["listen"]>[0] | undefined;
    let why = "the CDP connection closed";
    const failAll = (error: Error) => {
      for (const p of pending.values()) (clearTimeout(p.timer), p.reject(error));
      pending.clear();
    };
    const onAbort = () => ws.terminate();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    ws.once("unexpected-response", (_req, res) => reject(new Error(`the CDP target refused the connection (HTTP ${res.statusCode})`)));
    ws.on("error", (error) => {
      // ws names a message past maxPayload by its code; any other error by its name alone (a message could hold the URL).
      why =
        (error as { code?: string }).code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH"
          ? "a CDP message ran past its bound"
          : `the CDP connection failed (${error.name})`;
      reject(new Error(`the CDP target could not be reached (${error.name})`));
    });
    ws.on("close", () => {
      options.signal?.removeEventListener("abort", onAbort);
      failAll(new Error(why));
      listener?.closed(why);
    });
    ws.on("message", (data) => {
      let msg: {
        id?: number;
        method?: string;
        params?: Record<string, unknown>;
        sessionId?: string;
        result?: Record<string, unknown>;
        error?: { message: string };
      };
      try {
        msg = JSON.parse(String(data));
      } catch {
        return;
      }
      if (msg.id === undefined) {
        if (typeof msg.method === "string")
          listener?.event({ method: msg.method, params: msg.params ?? {}, ...(msg.sessionId ? { sessionId: msg.sessionId } : {}) });
        return;
      }
      const waiting = pending.get(msg.id);
      if (!waiting) return;
      pending.delete(msg.id);
      clearTimeout(waiting.timer);
      if (msg.error) waiting.reject(new Error(`CDP answered an error: ${msg.error.message}`));
      else waiting.resolve(msg.result ?? {});
    });
    ws.once("open", () =>
      resolve({
        send(method, params = {}, sessionId) {
          return new Promise((res, rej) => {
            if (ws.readyState !== WebSocket.OPEN) return rej(new Error(why));
            const id = ++next;
            const timer = setTimeout(() => (pending.delete(id), rej(new Error(`${method} did not answer within ${timeoutMs / 1000} s`))), timeoutMs);
            pending.set(id, { resolve: res, reject: rej, timer });
            ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
          });
        },
        listen(on) {
          listener = on;
        },
        close: () => {
          why = "the CDP connection was closed";
          ws.close();
        },
      }),
    );
  });
}
