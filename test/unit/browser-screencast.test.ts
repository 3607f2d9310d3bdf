// A browser's live view (src/kits/browser/screencast.ts) against a CDP stand-in on the loopback
// (a ws server that answers the calls the watch makes and casts the frames a test gives): frames
// paced by the caller's ack, only the newest kept while one is out, each whole and bounded, the
// pages opened later followed and a closed page's place taken by the newest left, the last page's
// close and the connection's end said once as gone, no word holding the URL, and no input.
// Real Chromium runs it in the browser fakes' conformance rows.
import { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { cdpLiveView, frameOf, MAX_MESSAGE_BYTES } from "../../src/kits/browser/screencast.js";
import type { ComputerRef, Connection, ScreenFrame } from "../../src/contract/provider.js";
import { fail, ok } from "../../src/daemon/result.js";
import { MAX_FRAME_BYTES } from "../../src/daemon/screen-watch.js";

// A JPEG of 640x400 with nothing to decode: its frame header, a scan, its end.
const JPEG = Buffer.concat([
  Buffer.from([0xff, 0xd8]),
  Buffer.from([0xff, 0xc0, 0, 11, 8, 0x01, 0x90, 0x02, 0x80, 1, 1, 0x11, 0]),
  Buffer.from([0xff, 0xda, 0, 8, 1, 1, 0, 0, 0x3f, 0, 0x12, 0x34]),
  Buffer.from([0xff, 0xd9]),
]);
const SESSION = "page-session-1";
const ref: ComputerRef = { id: "bb-1", name: "computer-0123456789ab", provider: "browserbase" };

/** The stand-in: Target.getTargets with its pages, attach (a session per attach), startScreencast; acks recorded; frames and page events sent on demand. */
class CdpStandIn {
  readonly server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  readonly listening = new Promise<void>((resolve) => this.server.once("listening", () => resolve()));
  readonly acks: number[] = [];
  readonly calls: string[] = [];
  /** Each call with its params and session, in order. */
  readonly sent: Array<{ method: string; params: Record<string, unknown>; sessionId?: string }> = [];
  socket?: WebSocket;
  pages = [{ targetId: "T1", type: "page" }];
  #attached = 0;

  constructor() {
    this.server.on("connection", (ws) => {
      this.socket = ws;
      ws.on("message", (data) => {
        const msg = JSON.parse(String(data)) as { id: number; method: string; params: Record<string, unknown>; sessionId?: string };
        this.calls.push(msg.method);
        this.sent.push({ method: msg.method, params: msg.params, ...(msg.sessionId ? { sessionId: msg.sessionId } : {}) });
        const answer = (result: object) => ws.send(JSON.stringify({ id: msg.id, result }));
        if (msg.method === "Target.getTargets") answer({ targetInfos: this.pages });
        else if (msg.method === "Target.attachToTarget") answer({ sessionId: `page-session-${++this.#attached}` });
        else if (msg.method === "Page.screencastFrameAck") (this.acks.push(msg.params.sessionId as number), answer({}));
        else answer({});
      });
    });
  }

  /** A page opened (a new tab or a popup), as discovery tells it; CDP lists pages newest first. */
  open(targetId: string): void {
    this.pages.unshift({ targetId, type: "page" });
    this.socket!.send(JSON.stringify({ method: "Target.targetCreated", params: { targetInfo: { targetId, type: "page" } } }));
  }

  /** A page closed: gone from the targets, and its session detached. */
  closePage(targetId: string, sessionId: string): void {
    this.pages = this.pages.filter((p) => p.targetId !== targetId);
    this.socket!.send(JSON.stringify({ method: "Target.detachedFromTarget", params: { sessionId, targetId } }));
  }

  /** A secret-looking URL, as a vendor's signed CDP URL is. */
  url(): string {
    return `ws://127.0.0.1:${(this.server.address() as AddressInfo).port}/connect?signingKey=sk_live_0123456789abcdef`;
  }

  cast(ack: number, data = JPEG.toString("base64"), width = 800, height = 600, sessionId = SESSION): void {
    this.socket!.send(
      JSON.stringify({
        method: "Page.screencastFrame",
        sessionId,
        params: { data, sessionId: ack, metadata: { deviceWidth: width, deviceHeight: height } },
      }),
    );
  }

  close(): Promise<void> {
    for (const c of this.server.clients) c.terminate();
    return new Promise((r) => this.server.close(() => r()));
  }
}

let standIn: CdpStandIn | undefined;
afterEach(async () => {
  await standIn?.close();
  standIn = undefined;
});

function provider(url: string | undefined) {
  return {
    connect: async () =>
      ok({
        client: {} as Connection["client"],
        hello: { version: "x", os: "linux", kind: "browser", arch: "unknown", groups: [] },
        ...(url ? { cdp: { url } } : {}),
        close: async () => undefined,
      } as Connection),
  };
}

const until = async (what: () => boolean) => {
  for (let i = 0; i < 200 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(what()).toBe(true);
};

async function watching() {
  standIn = new CdpStandIn();
  await standIn.listening;
  const frames: Array<{ frame: ScreenFrame; ack: () => void }> = [];
  const ended: Array<{ code: string; message: string }> = [];
  const watch = await cdpLiveView(provider(standIn.url()))(ref, { frame: (frame, ack) => frames.push({ frame, ack }), ended: (e) => ended.push(e) });
  if (!watch.ok) throw new Error(watch.error.message);
  await until(() => standIn!.calls.includes("Page.startScreencast"));
  return { s: standIn, frames, ended, watch: watch.value };
}

describe("a browser's live view over CDP's screencast", () => {
  it("gives each frame whole with the viewport as its screen, and acks Chromium only when the caller acks", async () => {
    const { s, frames } = await watching();
    s.cast(7);
    await until(() => frames.length === 1);
    expect(frames[0]!.frame).toMatchObject({ seq: 1, format: "jpeg", width: 800, height: 600, frameWidth: 640, frameHeight: 400 });
    expect(Buffer.from(frames[0]!.frame.bytes)).toEqual(JPEG);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.acks).toEqual([]);
    frames[0]!.ack();
    frames[0]!.ack();
    await until(() => s.acks.length === 1);
    expect(s.acks).toEqual([7]);
  });

  it("keeps only the newest frame while the caller holds one, acking the one passed over", async () => {
    const { s, frames } = await watching();
    s.cast(1);
    await until(() => frames.length === 1);
    s.cast(2);
    s.cast(3);
    await until(() => s.acks.includes(2));
    expect(frames).toHaveLength(1);
    frames[0]!.ack();
    await until(() => frames.length === 2 && s.acks.length === 2);
    expect(frames[1]!.frame.seq).toBe(2);
    expect(s.acks).toEqual([2, 1]);
    frames[1]!.ack();
    await until(() => s.acks.length === 3);
    expect(s.acks).toEqual([2, 1, 3]);
  });

  it("follows each page opened after it, and shows the newest page left when the page shown is closed", async () => {
    const { s, frames, ended } = await watching();
    expect(s.sent.find((c) => c.method === "Target.setDiscoverTargets")?.params).toEqual({ discover: true });
    s.open("T2");
    const casting = (session: string) => s.sent.some((c) => c.method === "Page.startScreencast" && c.sessionId === session);
    await until(() => casting("page-session-2"));
    expect(s.sent.filter((c) => c.method === "Target.attachToTarget").map((c) => c.params.targetId)).toEqual(["T1", "T2"]);
    await until(() => s.sent.some((c) => c.method === "Target.detachFromTarget" && c.params.sessionId === SESSION));
    s.cast(1, undefined, 800, 600, SESSION);
    s.cast(2, undefined, 400, 300, "page-session-2");
    await until(() => frames.length === 1);
    expect(frames[0]!.frame).toMatchObject({ seq: 1, width: 400, height: 300 });
    frames[0]!.ack();
    await until(() => s.acks.includes(2));
    expect(s.sent.find((c) => c.method === "Page.screencastFrameAck")?.sessionId).toBe("page-session-2");
    // A page discovery tells again is not followed twice.
    s.socket!.send(JSON.stringify({ method: "Target.targetCreated", params: { targetInfo: { targetId: "T2", type: "page" } } }));
    s.socket!.send(JSON.stringify({ method: "Target.targetCreated", params: { targetInfo: { targetId: "W1", type: "service_worker" } } }));
    s.open("T3");
    await until(() => casting("page-session-3"));
    // The page shown closes: the newest page left is shown, not the first.
    s.closePage("T3", "page-session-3");
    await until(() => casting("page-session-4"));
    expect(s.sent.filter((c) => c.method === "Target.attachToTarget").map((c) => c.params.targetId)).toEqual(["T1", "T2", "T3", "T2"]);
    s.cast(3, undefined, 400, 300, "page-session-4");
    await until(() => frames.length === 2);
    expect(frames[1]!.frame).toMatchObject({ seq: 2, width: 400, height: 300 });
    frames[1]!.ack();
    s.closePage("T2", "page-session-4");
    await until(() => casting("page-session-5"));
    s.cast(4, undefined, 800, 600, "page-session-5");
    await until(() => frames.length === 3);
    expect(frames[2]!.frame).toMatchObject({ seq: 3, width: 800, height: 600 });
    expect(ended).toEqual([]);
  });

  it("ends as gone, once, when its last page is closed or the connection ends, in words with no URL", async () => {
    const { s, ended } = await watching();
    s.closePage("T1", SESSION);
    await until(() => ended.length === 1);
    expect(ended[0]).toEqual({ code: "gone", message: `${ref.name}'s last page was closed, so its live view has nothing to show` });
    const second = await watching();
    second.s.socket!.terminate();
    await until(() => second.ended.length === 1);
    expect(second.ended[0]!.code).toBe("gone");
    expect(JSON.stringify(second.ended)).not.toMatch(/127\.0\.0\.1|signingKey|sk_live/);
  });

  it("ends a frame that is not a whole JPEG, and says no more after close()", async () => {
    const { s, ended } = await watching();
    s.cast(1, JPEG.subarray(0, JPEG.length - 2).toString("base64"));
    await until(() => ended.length === 1);
    expect(ended[0]).toMatchObject({ code: "unreachable", message: expect.stringMatching(/not a whole JPEG: the JPEG ends before its end of image/) });
    const closed = await watching();
    await closed.watch.close();
    closed.s.cast(1);
    await new Promise((r) => setTimeout(r, 50));
    expect([closed.frames.length, closed.ended.length]).toEqual([0, 0]);
  });

  it("takes no input: a browser is driven over CDP", async () => {
    const { watch } = await watching();
    expect(await watch.input([{ type: "move", point: [1, 1] }])).toMatchObject({ ok: false, error: { code: "unsupported" } });
    await watch.close();
    expect(await watch.input([{ type: "move", point: [1, 1] }])).toMatchObject({ ok: false, error: { code: "closed" } });
  });

  it("refuses a browser with no page, no CDP target, a refused connect, and bad options, in words with no URL", async () => {
    standIn = new CdpStandIn();
    await standIn.listening;
    standIn.pages = [];
    const handlers = { frame: () => undefined, ended: () => undefined };
    const none = await cdpLiveView(provider(standIn.url()))(ref, handlers);
    expect(none).toMatchObject({ ok: false, error: { code: "unsupported", message: expect.stringMatching(/has no page open/) } });
    expect(await cdpLiveView(provider(undefined))(ref, handlers)).toMatchObject({ ok: false, error: { code: "unsupported" } });
    const gone = { connect: async () => fail("gone", "the browser has ended") };
    expect(await cdpLiveView(gone)(ref, handlers)).toEqual({ ok: false, error: { code: "gone", message: "the browser has ended" } });
    const down = await cdpLiveView(provider("ws://127.0.0.1:1/connect?signingKey=sk_live_0123456789abcdef"))(ref, handlers);
    expect(down).toMatchObject({ ok: false, error: { code: "unreachable" } });
    expect(JSON.stringify(down)).not.toMatch(/signingKey|sk_live|127\.0\.0\.1:1/);
    expect(await cdpLiveView(provider(standIn.url()))(ref, handlers, { maxWidth: 0 })).toMatchObject({ ok: false, error: { field: "maxWidth" } });
    expect(await cdpLiveView(provider(standIn.url()))(ref, handlers, { quality: 101 })).toMatchObject({ ok: false, error: { field: "quality" } });
  });
});

describe("frameOf", () => {
  it("refuses a frame past the daemon's bound before decoding it, and holds a message to that bound", () => {
    expect(frameOf({ data: "A".repeat(Math.ceil((MAX_FRAME_BYTES * 4) / 3) + 8), ack: 1, width: 1, height: 1 }, 1)).toBe(
      `a frame ran past ${MAX_FRAME_BYTES} bytes`,
    );
    expect(MAX_MESSAGE_BYTES).toBeGreaterThan((MAX_FRAME_BYTES * 4) / 3);
  });
});
