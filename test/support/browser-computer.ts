// What the tests of a browser computer whose daemon runs (Docker's, Kubernetes') share: its served
// CDP URL held to its form and driven by chrome-remote-interface (a page navigated, an input filled,
// evaluated and shot), refused with a changed secret and once its connection is closed, and
// Chromium killed by hand through the daemon, read back until the drift says it ended; a browser
// claimed from a warm pool, its version and pages over the CDP URL its claim handed out; a page
// with its network events kept, for the allowlist's refusals.
import CDP from "chrome-remote-interface";
import { expect } from "vitest";
import WebSocket from "ws";
import type { ComputerClient } from "../../src/daemon/client.js";
import type { Connection, ReadBack } from "../../src/contract/provider.js";
import type { Result } from "../../src/daemon/result.js";
import type { Claimed } from "../../src/fleet/pool.js";

/**
 * The URL a connection serves, held to what it must be: a WebSocket on this machine's loopback
 * with a 48-digit secret, which the connection's JSON does not hold.
 */
export function servedUrl(connection: Connection): string {
  const url = connection.cdp!.url;
  expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[0-9a-f]{48}$/);
  expect(JSON.stringify(connection)).not.toContain(url);
  return url;
}

/** The HTTP status an upgrade to url gets, or the error's code when nothing answers. */
function upgradeRefusal(url: string): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url);
    ws.on("unexpected-response", (_req, res) => (resolve(String(res.statusCode)), ws.terminate()));
    ws.on("open", () => (resolve("open"), ws.close()));
    ws.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** The URL refused (403) with one digit of its secret changed, and, once close() ends its connection, answered by nothing. */
export async function refusedChangedThenClosed(url: string, close: () => Promise<void>): Promise<void> {
  const changed = url.replace(/[0-9a-f]$/, (d) => (d === "0" ? "1" : "0"));
  expect(await upgradeRefusal(changed)).toBe("403");
  await close();
  expect(await upgradeRefusal(url)).toBe("ECONNREFUSED");
}

/** How a browser killed by hand reads back. */
export const KILLED = /^the browser has ended: Chromium was killed \(SIGKILL/;

/** Every Chromium the daemon started, killed by hand (SIGKILL). */
export async function killChromium(client: ComputerClient): Promise<void> {
  const procs = await client.call("process.list", {});
  for (const p of procs.processes.filter((p) => p.running && p.argv[0] === "chromium")) await client.call("process.signal", { id: p.id, signal: "KILL" });
}

/** The drift read back, again until one sentence matches (up to tries reads, ms apart): the last read's. */
export async function driftUntil(read: () => Promise<Result<ReadBack>>, match: (line: string) => boolean, tries = 50, ms = 200): Promise<string[]> {
  let drift: string[] = [];
  for (let i = 0; i < tries && !drift.some(match); i++) {
    const got = await read();
    if (got.ok) drift = got.value.drift;
    await new Promise((r) => setTimeout(r, ms));
  }
  return drift;
}

/**
 * The browser driven over url by a CDP client this project did not write: a data: page with a
 * form navigated to, its input filled, the page evaluated and shot (a PNG); then the session's
 * target and its id for a caller's own steps, before the client is closed.
 */
export async function driveForm(url: string, then?: (c: CDP.Client, sessionId: string) => Promise<void>): Promise<void> {
  // The URL is the browser's target itself; local: the client's own protocol, as the URL's server
  // answers the upgrade alone (no /json endpoints).
  const c = await CDP({ target: url, local: true });
  try {
    expect((await c.send("Browser.getVersion")).product).toMatch(/^(Headless)?Chrome\//);
    const html = "<title>form</title><input id=q><p id=p>42</p>";
    const { targetId } = await c.send("Target.createTarget", { url: `data:text/html,${encodeURIComponent(html)}` });
    const { sessionId } = await c.send("Target.attachToTarget", { targetId, flatten: true });
    const value = async (expression: string) => (await c.send("Runtime.evaluate", { expression, returnByValue: true }, sessionId)).result.value;
    for (let i = 0; i < 100 && (await value("document.readyState")) !== "complete"; i++) await new Promise((r) => setTimeout(r, 50));
    // A target made in the background is not the focused page, so typed text may go nowhere: the
    // page is told to act as focused, and the input holds focus before anything is typed.
    await c.send("Emulation.setFocusEmulationEnabled", { enabled: true }, sessionId);
    for (let i = 0; i < 100 && (await value("document.getElementById('q').focus(), document.activeElement.id")) !== "q"; i++)
      await new Promise((r) => setTimeout(r, 50));
    await c.send("Input.insertText", { text: "agentrun" }, sessionId);
    expect(await value("document.title + ':' + document.getElementById('q').value + ':' + document.getElementById('p').textContent")).toBe("form:agentrun:42");
    const shot = await c.send("Page.captureScreenshot", { format: "png" }, sessionId);
    expect(Buffer.from(shot.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    await then?.(c, sessionId);
  } finally {
    await c.close();
  }
}

/** A claimed browser's version and pages, over the CDP URL its claim handed out. */
export async function claimedPages(c: Claimed): Promise<{ product: string; urls: string[] }> {
  expect(c.cdp?.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[0-9a-f]{48}$/);
  const cdp = await CDP({ target: c.cdp!.url, local: true });
  try {
    const { product } = await cdp.send("Browser.getVersion");
    const { targetInfos } = await cdp.send("Target.getTargets");
    return { product, urls: targetInfos.filter((t) => t.type === "page").map((t) => t.url) };
  } finally {
    await cdp.close();
  }
}

/** A page on the browser with its network events kept: go to a URL, read its text, run script, wait for an event. */
export async function cdpPage(c: CDP.Client) {
  const { targetId } = await c.send("Target.createTarget", { url: "about:blank" });
  const { sessionId } = await c.send("Target.attachToTarget", { targetId, flatten: true });
  const responses: Array<{ url: string; status: number; requestId: string }> = [];
  const failed: Array<{ requestId: string; errorText: string }> = [];
  const urls = new Map<string, string>();
  c.on("Network.requestWillBeSent", (e, from) => from === sessionId && urls.set(e.requestId, e.request.url));
  c.on(
    "Network.responseReceived",
    (e, from) => from === sessionId && responses.push({ url: e.response.url, status: e.response.status, requestId: e.requestId }),
  );
  let loads = 0;
  c.on("Page.loadEventFired", (_e, from) => from === sessionId && (loads += 1));
  c.on("Network.loadingFailed", (e, from) => from === sessionId && failed.push(e));
  await c.send("Network.enable", {}, sessionId);
  await c.send("Page.enable", undefined, sessionId);
  const value = async (expression: string) =>
    (await c.send("Runtime.evaluate", { expression, returnByValue: true, awaitPromise: true }, sessionId)).result.value as unknown;
  const until = async <T>(what: string, get: () => T | undefined | Promise<T | undefined>): Promise<T> => {
    for (let i = 0; i < 200; i++) {
      const got = await get();
      if (got !== undefined) return got;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`waited 10 s for ${what}`);
  };
  return {
    value,
    until,
    /** Navigates and waits for the page to load: the text it shows. */
    go: async (url: string) => {
      const before = loads;
      const navigated = await c.send("Page.navigate", { url }, sessionId);
      if (navigated.errorText) return { error: navigated.errorText };
      await until(`${url} loaded`, () => (loads > before ? true : undefined));
      return { text: String(await value("document.body.innerText")) };
    },
    /** The answer CDP saw to url: its status and the body as CDP gives it. */
    answer: (url: string) =>
      until(`an answer to ${url}`, async () => {
        const r = responses.find((x) => x.url === url);
        if (!r) return undefined;
        const { body } = await c.send("Network.getResponseBody", { requestId: r.requestId }, sessionId);
        return { status: r.status, body };
      }),
    failure: (url: string) => until(`a failure of ${url}`, () => failed.find((f) => urls.get(f.requestId) === url)?.errorText),
  };
}
