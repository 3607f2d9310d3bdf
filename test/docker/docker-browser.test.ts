// A Docker browser on the real engine, one computer for every case: Chromium started through its
// daemon with network none, driven over the CDP URL its connection serves on this machine's
// loopback by chrome-remote-interface (a CDP client from npm, pinned, that this project did not
// write), a page navigated, an input filled, evaluated and shot; the URL refused with a
// changed secret and once its connection is closed; its WebSockets carried by a relay socket of the
// computer's, which ends with the connection; a page beyond the computer not reached; and
// the browser killed, then started again by hand with another proxy, read back as drift by field.
import CDP from "chrome-remote-interface";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerRef } from "../../src/contract/provider.js";
import { driftUntil, driveForm, KILLED, killChromium, refusedChangedThenClosed, servedUrl } from "../support/browser-computer.js";
import { agentrun } from "../support/cli-helpers.js";
import { cleanup, provider, spec } from "../support/docker-helpers.js";

const made = cleanup("all");
const docker = provider();
let browser: ComputerRef;

beforeAll(async () => {
  const created = await docker.create(spec({ kind: "browser", image: "chromium", network: "none" }));
  if (created.ok) made.track(created.value.name);
  if (!created.ok) throw new Error(`${created.error.code}: ${created.error.message}`);
  browser = created.value;
}, 600_000);

afterAll(() => docker.close());

describe("a Docker browser", () => {
  it("is driven over the URL its connection serves: navigate, fill, evaluate, screenshot", async () => {
    expect(browser.spec?.kind).toBe("browser");
    expect(browser.spec?.image).toBe("chromium");
    const connection = await docker.connect(browser);
    if (!connection.ok) throw new Error(connection.error.message);
    const url = servedUrl(connection.value);
    await driveForm(url, async (c, sessionId) => {
      // network none: a page past the computer is not reached (its proxy is a closed port).
      const navigated = await c.send("Page.navigate", { url: "http://10.255.255.1/" }, sessionId);
      expect(navigated.errorText).toMatch(/ERR_PROXY_CONNECTION_FAILED|ERR_TUNNEL_CONNECTION_FAILED/);
    });
    await refusedChangedThenClosed(url, () => connection.value.close());
  }, 120_000);

  it("carries a WebSocket over a relay socket in the computer (no daemon call a message), ended with its connection", async () => {
    const connection = await docker.connect(browser);
    if (!connection.ok) throw new Error(connection.error.message);
    const watcher = await docker.connect(browser);
    if (!watcher.ok) throw new Error(watcher.error.message);
    const socats = async () => (await watcher.value.client.call("process.list", {})).processes.filter((p) => p.running && p.argv[0] === "socat");
    try {
      const c = await CDP({ target: connection.value.cdp!.url, local: true });
      try {
        for (let i = 0; i < 20; i++) expect((await c.send("Browser.getVersion")).product).toMatch(/^(Headless)?Chrome\//);
        // One relay on a socket of /run/agentrun; no socat of the daemon's way (its stdin a pipe the daemon writes).
        const running = await socats();
        expect(running.map((p) => p.argv.slice(1, 2))).toEqual([[expect.stringMatching(/^UNIX-LISTEN:\/run\/agentrun\/cdp-[0-9a-f]{12}\.sock,fork,mode=600/)]]);
      } finally {
        await c.close();
      }
      await connection.value.close();
      expect(await socats()).toEqual([]);
    } finally {
      await watcher.value.close();
    }
  }, 120_000);

  it("agentrun cdp serves its URL until interrupted, then the URL answers no more", async () => {
    const run = agentrun(["cdp", browser.name], { timeoutMs: 60_000 });
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      run.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("\n")) resolve(out.trim());
      });
      void run.then((ended) => reject(new Error(`agentrun cdp ended first: ${ended.exitCode} ${ended.stderr}`)));
    });
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/devtools\/browser\/[0-9a-f]{48}$/);
    const c = await CDP({ target: url, local: true });
    try {
      expect((await c.send("Browser.getVersion")).product).toMatch(/^(Headless)?Chrome\//);
    } finally {
      await c.close();
    }
    await refusedChangedThenClosed(url, async () => {
      run.kill("SIGINT");
      const ended = await run;
      expect([ended.exitCode, ended.stderr]).toEqual([0, expect.stringContaining("until interrupted (Ctrl-C)")]);
    });
  }, 120_000);

  it("reads back a browser killed, then one started by hand with another proxy, as drift by field", async () => {
    const clean = await docker.read({ id: browser.id });
    if (!clean.ok) throw new Error(clean.error.message);
    expect(clean.value.drift).toEqual([]);
    const connection = await docker.connect(browser);
    if (!connection.ok) throw new Error(connection.error.message);
    const { client } = connection.value;
    await killChromium(client);
    const ended = await driftUntil(
      () => docker.read({ id: browser.id }),
      (d) => KILLED.test(d),
      50,
      100,
    );
    expect(ended).toContainEqual(expect.stringMatching(KILLED));
    // Started again by hand, through the proxy of someone else's choosing.
    await client.call("process.start", {
      argv: [
        "chromium",
        "--headless",
        "--no-sandbox",
        "--user-data-dir=/work/.other",
        "--remote-debugging-port=9222",
        "--proxy-server=10.1.2.3:8080",
        "about:blank",
      ],
    });
    const drift = await driftUntil(
      () => docker.read({ id: browser.id }),
      (d) => d.includes("--proxy-server"),
      100,
    );
    await connection.value.close();
    expect(drift).toContainEqual('browser --proxy-server: "10.1.2.3:8080", declared "127.0.0.1:9"');
    expect(drift).toContainEqual('browser --proxy-bypass-list: not given, declared "<-loopback>"');
    expect(drift).toContainEqual('browser --user-data-dir: "/work/.other", declared "/work/.chromium"');
    const attached = await docker.attach({ id: browser.id });
    expect(attached.ok).toBe(false);
  }, 120_000);
});
