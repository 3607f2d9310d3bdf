// The least CDP client the browser cases need: one WebSocket to a browser's CDP target, calls by
// id with an optional flattened session, each bounded and under a signal. Its errors never hold
// the URL (a signed URL is a key).
import WebSocket from "ws";

export interface Cdp {
  send(method: string, params?: Record<string, unknown>, sessionId?: string): Promise<Record<string, unknown>>;
  close(): void;
}

/** Opens a CDP connection; rejects in words with no URL when the target refuses it or does not answer in time. */
export function openCdp(url: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Cdp> {
  const timeoutMs = options.timeoutMs ?? 15_000;
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { handshakeTimeout: timeoutMs, perMessageDeflate: false });
    const pending = new Map<number, { resolve: (v: Record<string, unknown>) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }>();
    let next = 0;
    const failAll = (error: Error) => {
      for (const p of pending.values()) (clearTimeout(p.timer), p.reject(error));
      pending.clear();
    };
    const onAbort = () => ws.terminate();
    options.signal?.addEventListener("abort", onAbort, { once: true });
    ws.once("unexpected-response", (_req, res) => reject(new Error(`the CDP target refused the connection (HTTP ${res.statusCode})`)));
    ws.once("error", (error) => reject(new Error(`the CDP target could not be reached (${error.name})`)));
    ws.on("close", () => {
      options.signal?.removeEventListener("abort", onAbort);
      failAll(new Error("the CDP connection closed"));
    });
    ws.on("message", (data) => {
      const msg = JSON.parse(String(data)) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
      const waiting = msg.id === undefined ? undefined : pending.get(msg.id);
      if (!waiting) return;
      pending.delete(msg.id!);
      clearTimeout(waiting.timer);
      if (msg.error) waiting.reject(new Error(`CDP answered an error: ${msg.error.message}`));
      else waiting.resolve(msg.result ?? {});
    });
    ws.once("open", () =>
      resolve({
        send(method, params = {}, sessionId) {
          return new Promise((res, rej) => {
            const id = ++next;
            const timer = setTimeout(() => (pending.delete(id), rej(new Error(`${method} did not answer within ${timeoutMs / 1000} s`))), timeoutMs);
            pending.set(id, { resolve: res, reject: rej, timer });
            ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
          });
        },
        close: () => ws.close(),
      }),
    );
  });
}

/** A new page on a data: URL, attached flat: its session id for calls on the page. */
export async function openPage(cdp: Cdp, html: string): Promise<{ targetId: string; sessionId: string }> {
  const { targetId } = (await cdp.send("Target.createTarget", { url: `data:text/html,${encodeURIComponent(html)}` })) as { targetId: string };
  const { sessionId } = (await cdp.send("Target.attachToTarget", { targetId, flatten: true })) as { sessionId: string };
  return { targetId, sessionId };
}

/** An expression's value on a page once its data: document has loaded (a new target answers before its load). */
export async function evaluateLoaded(cdp: Cdp, sessionId: string, expression: string, timeoutMs = 10_000): Promise<unknown> {
  const loaded = "location.protocol === 'data:' && document.readyState === 'complete'";
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ready = (await cdp.send("Runtime.evaluate", { expression: loaded, returnByValue: true }, sessionId)) as { result?: { value?: unknown } };
    if (ready.result?.value === true) break;
    if (Date.now() > until) throw new Error(`the data: page did not load within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const answer = (await cdp.send("Runtime.evaluate", { expression, returnByValue: true }, sessionId)) as {
    result?: { value?: unknown };
    exceptionDetails?: { text?: string };
  };
  if (answer.exceptionDetails) throw new Error(`the page threw: ${answer.exceptionDetails.text ?? "an exception"}`);
  return answer.result?.value;
}
