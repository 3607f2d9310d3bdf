// The Browserbase provider against the fake (test/support/fake-browserbase.ts): a real HTTP server
// on the loopback whose sessions are real headless Chromium in hardened containers, so create,
// connect's CDP URL, the live view, list, release, the timeout's end and every cut-off create run
// as they would at Browserbase.
import { execFileSync } from "node:child_process";
import { beforeAll, describe, expect, it } from "vitest";
import { create } from "../../src/browserbase/create.js";
import type { BrowserbaseProvider } from "../../src/browserbase/provider.js";
import { evaluateLoaded, openCdp, openPage } from "../../src/conformance/cdp.js";
import { orThrow } from "../../src/daemon/result.js";
import { useBrowserbaseFake } from "../support/browser-helpers.js";

const KEY = `bb_test_${process.pid}_key`;
const PROJECT = "proj-test";
const held = useBrowserbaseFake(KEY, PROJECT);
let provider: BrowserbaseProvider;

beforeAll(() => {
  provider = create({ apiKey: KEY, projectId: PROJECT, apiUrl: held.fake.apiUrl, pollMs: 50 });
});

const spec = { image: "chromium", lifetimeMs: 300_000, network: "open" as const, labels: { "agentrun.test": "bb-fake" } };

const inspect = (name: string) => JSON.parse(execFileSync("docker", ["inspect", name]).toString())[0];

describe("Browserbase against the fake, with real Chromium", () => {
  it("create, CDP through the URL connect gives (Browser.getVersion, Runtime.evaluate on a data: page), release; nothing is left", async () => {
    const ref = orThrow(await provider.create(spec));
    try {
      expect(ref.spec).toMatchObject({ image: "chromium", network: "open", kind: "browser" });
      const conn = orThrow(await provider.connect(ref));
      const cdp = await openCdp(conn.cdp!.url);
      try {
        expect(String((await cdp.send("Browser.getVersion")).product)).toMatch(/^Chrome\/\d+/);
        const page = await openPage(cdp, "<title>agentrun</title><p>hi</p>");
        expect(await evaluateLoaded(cdp, page.sessionId, "document.title + ':' + (1+1)")).toBe("agentrun:2");
      } finally {
        cdp.close();
        await conn.close();
      }
    } finally {
      expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    }
    expect(held.fake.live()).toEqual([]);
    expect((await provider.connect(ref)).ok).toBe(false);
  }, 120_000);

  it("runs each browser hardened: uid 1000, no capability, no new privileges, CDP on 127.0.0.1 alone", async () => {
    const ref = orThrow(await provider.create(spec));
    try {
      const browser = held.fake.browserOf(ref.id)!;
      const c = inspect(browser.container);
      expect(c.Config.User).toBe("1000:1000");
      expect(c.HostConfig.CapDrop).toEqual(["ALL"]);
      expect(c.HostConfig.SecurityOpt).toContain("no-new-privileges");
      const bindings = Object.values(c.HostConfig.PortBindings as Record<string, Array<{ HostIp: string }>>).flat();
      expect(bindings.map((b) => b.HostIp)).toEqual(["127.0.0.1"]);
      const status = execFileSync("docker", ["exec", browser.container, "cat", "/proc/1/status"]).toString();
      expect(status).toMatch(/^CapEff:\s*0+$/m);
      expect(status).toMatch(/^NoNewPrivs:\s*1$/m);
    } finally {
      orThrow(await provider.release(ref, "delete"));
    }
  }, 120_000);

  it("refuses a CDP connection with a wrong or missing signing key", async () => {
    const ref = orThrow(await provider.create(spec));
    try {
      const url = orThrow(await provider.connect(ref)).cdp!.url;
      const wrong = new URL(url);
      wrong.searchParams.set("signingKey", "0".repeat(64));
      await expect(openCdp(wrong.toString())).rejects.toThrow(/refused the connection \(HTTP 401\)/);
      wrong.searchParams.delete("signingKey");
      await expect(openCdp(wrong.toString())).rejects.toThrow(/HTTP 401/);
    } finally {
      orThrow(await provider.release(ref, "delete"));
    }
  }, 120_000);

  it("gives the live view, a page of the browser's own frames", async () => {
    const ref = orThrow(await provider.create(spec));
    try {
      const { url } = orThrow(await provider.stream!(ref));
      const page = await fetch(url);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-type")).toMatch(/text\/html/);
      const frame = await fetch(url.replace("?", "/frame.jpg?"));
      const bytes = Buffer.from(await frame.arrayBuffer());
      expect(bytes.subarray(0, 2).toString("hex")).toBe("ffd8");
      const forged = new URL(url);
      forged.searchParams.set("token", "nope");
      expect((await fetch(forged)).status).toBe(401);
    } finally {
      orThrow(await provider.release(ref, "delete"));
    }
  }, 120_000);

  it("its watch() follows a page opened later, goes back when it closes, and ends with the last page", async () => {
    const ref = orThrow(await provider.create(spec));
    const frames: Array<{ width: number; height: number }> = [];
    const ended: Array<{ code: string; message: string }> = [];
    const watch = orThrow(
      await provider.watch(ref, {
        frame: (frame, ack) => (frames.push({ width: frame.width, height: frame.height }), ack()),
        ended: (error) => ended.push(error),
      }),
    );
    const conn = orThrow(await provider.connect(ref));
    const cdp = await openCdp(conn.cdp!.url);
    const sizes = () => frames.map((f) => `${f.width}x${f.height}`);
    const until = async (what: () => boolean, words: string) => {
      for (let i = 0; i < 300 && !what(); i++) await new Promise((r) => setTimeout(r, 50));
      if (!what()) throw new Error(`${words}; frames so far: ${sizes().join(" ")}`);
    };
    try {
      await until(() => frames.length > 0, "no frame of the first page");
      // Pages that repaint all the time (a static page casts a frame only when it paints), each its own viewport.
      const animated = (width: number, height: number) =>
        openPage(cdp, "<style>@keyframes k{to{background:#33c}}body{animation:k .5s infinite alternate}</style>").then(async (page) => {
          await cdp.send("Emulation.setDeviceMetricsOverride", { width, height, deviceScaleFactor: 1, mobile: false }, page.sessionId);
          return page;
        });
      await animated(500, 400);
      await until(() => sizes().at(-1) === "500x400", "the watch did not follow the page opened after it");
      const third = await animated(600, 300);
      await until(() => sizes().at(-1) === "600x300", "the watch did not follow the next page opened");
      await cdp.send("Target.closeTarget", { targetId: third.targetId });
      await until(() => sizes().at(-1) === "500x400", "the watch did not go to the newest page left");
      expect(ended).toEqual([]);
      const { targetInfos } = (await cdp.send("Target.getTargets")) as { targetInfos: Array<{ targetId: string; type: string }> };
      for (const t of targetInfos.filter((t) => t.type === "page")) await cdp.send("Target.closeTarget", { targetId: t.targetId });
      await until(() => ended.length === 1, "the watch did not end with the last page");
      expect(ended[0]).toEqual({ code: "gone", message: `${ref.name}'s last page was closed, so its live view has nothing to show` });
    } finally {
      await watch.close();
      cdp.close();
      await conn.close();
      orThrow(await provider.release(ref, "delete"));
    }
  }, 120_000);

  it("lists and attaches by labels, matching every label", async () => {
    const a = orThrow(await provider.create({ ...spec, labels: { "agentrun.test": "bb-fake", run: "one" } }));
    try {
      expect(orThrow(await provider.list({ "agentrun.test": "bb-fake", run: "one" })).map((c) => c.ref.id)).toEqual([a.id]);
      expect(orThrow(await provider.list({ "agentrun.test": "bb-fake", run: "two" }))).toEqual([]);
      expect(orThrow(await provider.attach({ labels: { run: "one" } })).id).toBe(a.id);
      expect(orThrow(await provider.attach({ id: a.id })).name).toBe(a.name);
    } finally {
      orThrow(await provider.release(a, "delete"));
    }
  }, 120_000);

  it("a session the fake ends at its timeout is gone, as at the vendor", async () => {
    held.fake.timeScale = 20; // the session's 60 s end 1.2 s after its create
    try {
      const ref = orThrow(await provider.create({ ...spec, lifetimeMs: 60_000 }));
      await new Promise((r) => setTimeout(r, 2500));
      const conn = await provider.connect(ref);
      expect(conn.ok ? "" : conn.error.code).toBe("gone");
      expect(held.fake.sessions.get(ref.id)!.session.status).toBe("TIMED_OUT");
      expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    } finally {
      held.fake.timeScale = 1000;
    }
  }, 60_000);

  it("refuses a wrong key as unauthorized, in words with no key, and makes nothing", async () => {
    const wrong = create({ apiKey: "bb_wrong_0123456789abcdef", projectId: PROJECT, apiUrl: held.fake.apiUrl });
    const before = held.fake.sessions.size;
    const made = await wrong.create(spec);
    expect(made.ok ? "" : made.error.code).toBe("unauthorized");
    expect(JSON.stringify(made)).not.toContain("bb_wrong");
    expect(held.fake.sessions.size).toBe(before);
    const tested = await wrong.testConnection!();
    expect(tested.ok ? "" : tested.error.message).toBe("GET /v1/sessions?status=RUNNING: Browserbase answered HTTP 401 (unauthorized: check the API key)");
    expect(orThrow(await provider.testConnection!()).detail).toMatch(/^Browserbase answers; 0 browsers of this provider running$/);
  });
});

describe("a create cut off at each step leaves nothing at the fake", () => {
  it("before the POST: nothing is sent", async () => {
    const sent = held.fake.creates.length;
    const made = await provider.create(spec, { signal: AbortSignal.abort() });
    expect(made.ok ? "" : made.error.code).toBe("aborted");
    expect(held.fake.creates.length).toBe(sent);
  });

  it("during the POST (the caller's abort): what its label made is found and released", async () => {
    held.fake.createDelayMs = 3000;
    try {
      const sent = held.fake.creates.length;
      const made = await provider.create(spec, { signal: AbortSignal.timeout(1500) });
      expect(made.ok ? "" : made.error.code).toBe("aborted");
      expect(made.ok ? "" : made.error.message).toMatch(/found 1 browser it made by its create label and released it/);
      expect(held.fake.creates.length).toBe(sent + 1);
    } finally {
      held.fake.createDelayMs = 0;
    }
    await expect.poll(() => held.fake.live(), { timeout: 10_000 }).toEqual([]);
  }, 60_000);

  it.each(["drop-reply", "answer-500", "answer-no-body"] as const)(
    "after the POST (%s): one create sent, what it made released",
    async (fault) => {
      held.fake.createFault = fault;
      const sent = held.fake.creates.length;
      const made = await provider.create(spec);
      expect(made.ok).toBe(false);
      expect(made.ok ? "" : made.error.message).toMatch(
        /^POST \/v1\/sessions: .*; its outcome was unknown; it found 1 browser it made by its create label and released it$/,
      );
      expect(held.fake.creates.length).toBe(sent + 1);
      expect(held.fake.live()).toEqual([]);
    },
    60_000,
  );
});
