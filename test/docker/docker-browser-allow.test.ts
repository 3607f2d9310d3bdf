// An allowlisted Docker browser on the real engine, one computer for every case: Chromium's
// traffic goes through the computer's egress proxy, so a listed site loads (the test's own
// upstream on an --internal network of its own) and everything else is refused in the proxy's
// words, in the page and in CDP's network events: an unlisted address, a name (no lookup made), a
// page's subresource and a WebSocket on an unlisted host, and the Docker host's own address,
// where a server of the test's counts that nothing reached it. Driven by chrome-remote-interface
// (pinned, not ours). The browser reads back clean, and one started again by hand without the
// proxy is drift by field.
import { createServer, type Server } from "node:http";
import { randomBytes } from "node:crypto";
import CDP from "chrome-remote-interface";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerRef } from "../../src/contract/provider.js";
import type { DockerProvider } from "../../src/docker/index.js";
import { cdpPage } from "../support/browser-computer.js";
import { cleanup, provider, spec } from "../support/docker-helpers.js";
import { removeEgress } from "../support/docker.js";
import { startUpstream, type Upstream } from "../support/egress-upstream.js";

const made = cleanup("all");
const REFUSED = /is not on this box's network list: ask the test/;
let up: Upstream;
let p: DockerProvider;
let browser: ComputerRef;
// A server on the Docker host's own address on the test's network, on a port the proxy passes
// (80): it counts every connection.
let host: Server;
let reachedHost = 0;

beforeAll(async () => {
  up = startUpstream(`agentrun-browser-allow-${randomBytes(4).toString("hex")}`);
  host = createServer((_req, res) => res.end("the host"));
  host.on("connection", () => (reachedHost += 1));
  await new Promise<void>((resolve) => host.listen(80, up.gateway, resolve));
  p = provider({ egress: up.egress });
  const created = await p.create(spec({ kind: "browser", image: "chromium", network: { allow: [`${up.ip}/32`] } }));
  if (created.ok) made.track(created.value.name);
  if (!created.ok) throw new Error(`${created.error.code}: ${created.error.message}`);
  browser = created.value;
}, 600_000);

afterAll(async () => {
  // The computer first: its egress volume cannot be removed while the computer mounts it.
  if (browser) await p.release(browser, "delete");
  if (browser) await removeEgress(browser.name);
  await p?.close();
  host?.close();
  up?.close();
}, 60_000);

describe("an allowlisted Docker browser", () => {
  it("loads a listed site; refuses an unlisted address, a name, a subresource, a WebSocket and the host's own address in the proxy's words", async () => {
    const connection = await p.connect(browser);
    if (!connection.ok) throw new Error(connection.error.message);
    const c = await CDP({ target: connection.value.cdp!.url, local: true });
    try {
      const tab = await cdpPage(c);
      const listed = `http://${up.ip}/listed`;
      expect(await tab.go(listed)).toEqual({ text: "hello from upstream /listed" });
      expect(await tab.answer(listed)).toEqual({ status: 200, body: "hello from upstream /listed" });

      // The host's own address (the network's gateway, where the test's server listens) and a
      // name: each refused by the proxy, its words shown in the page and in the network events.
      const hostURL = `http://${up.gateway}/`;
      for (const url of [hostURL, "http://unlisted.egress.test/"]) {
        const shown = await tab.go(url);
        expect(shown.text).toMatch(REFUSED);
        const answer = await tab.answer(url);
        expect(answer.status).toBe(403);
        expect(answer.body).toMatch(REFUSED);
        expect(answer.body).toContain(new URL(url).hostname);
      }

      // From the listed page: a subresource and a WebSocket on an unlisted host.
      await tab.go(listed);
      const image = `${hostURL}pixel.png`;
      await tab.value(`(() => { const i = new Image(); i.src = ${JSON.stringify(image)}; document.body.append(i); })()`);
      const sub = await tab.answer(image);
      expect(sub.status).toBe(403);
      expect(sub.body).toMatch(REFUSED);
      const socket = await tab.value(
        `new Promise((resolve) => { const ws = new WebSocket(${JSON.stringify(`ws://${up.gateway}/`)}); ws.onopen = () => resolve("open"); ws.onclose = () => resolve("closed"); })`,
      );
      expect(socket).toBe("closed");
    } finally {
      await c.close();
      await connection.value.close();
    }
    expect(reachedHost).toBe(0);
  }, 120_000);

  it("reads back clean, and a browser started again by hand without the proxy as drift by field", async () => {
    const clean = await p.read({ id: browser.id });
    if (!clean.ok) throw new Error(clean.error.message);
    expect(clean.value.drift).toEqual([]);
    expect(clean.value.ref.spec?.network).toEqual({ allow: [`${up.ip}/32`] });
    const connection = await p.connect(browser);
    if (!connection.ok) throw new Error(connection.error.message);
    const { client } = connection.value;
    try {
      for (const proc of (await client.call("process.list", {})).processes.filter((x) => x.running && x.argv[0] === "chromium"))
        await client.call("process.signal", { id: proc.id, signal: "KILL" });
      await client.call("process.start", {
        argv: ["chromium", "--headless", "--no-sandbox", "--user-data-dir=/work/.chromium", "--remote-debugging-port=9222", "about:blank"],
      });
      let drift: string[] = [];
      // A browser still starting reads as not answering CDP: not yet.
      const settled = () => drift.some((d) => d.includes("--proxy-server")) && !drift.some((d) => d.includes("CDP does not answer"));
      for (let i = 0; i < 100 && !settled(); i++) {
        const read = await p.read({ id: browser.id });
        if (read.ok) drift = read.value.drift;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(drift).toEqual([
        'browser --proxy-server: not given, declared "http://127.0.0.1:3128"',
        'browser --proxy-bypass-list: not given, declared "<-loopback>"',
      ]);
    } finally {
      await connection.value.close();
    }
  }, 120_000);
});
