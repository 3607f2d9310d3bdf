// The browser cases' CDP helpers over the library's client (src/kits/browser/cdp.ts): a page
// opened on a data: URL, and an expression's value once it has loaded.
import type { Cdp } from "../kits/browser/cdp.js";

export { openCdp, type Cdp } from "../kits/browser/cdp.js";

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
