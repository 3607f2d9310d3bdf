// watchScreen over a stand-in connection that answers as computerd does: frames read whole across
// screen.read, unchanged answers waited through, a frame past 64 MiB refused, at most 8 inputs in
// flight, and a failed action's words redacted; and daemonLiveView, the watch() every computerd
// vendor (Docker, E2B) serves through: no screen refused, connect's refusal redacted, the end once.
import { describe, expect, it, vi } from "vitest";
import { CallError, type ComputerClient } from "../../src/daemon/client.js";
import type { Connection, ScreenFrame } from "../../src/contract/provider.js";
import { fail, ok } from "../../src/daemon/result.js";
import { daemonLiveView } from "../../src/contract/watch.js";
import { MAX_INPUTS_IN_FLIGHT, ScreenWatchError, watchScreen } from "../../src/daemon/screen-watch.js";

type Answer = (params: Record<string, unknown>) => unknown;

function connection(answers: Record<string, Answer>): Connection {
  const client = {
    async call(method: string, params: Record<string, unknown>) {
      const answer = answers[method];
      if (!answer) throw new CallError("unsupported", `no ${method}`, method);
      return answer(params);
    },
    request: async () => ({}),
    close: async () => {},
  } as unknown as ComputerClient;
  return { client, hello: { version: "0", os: "linux", kind: "desktop", arch: "amd64", groups: ["screen"] }, close: async () => {} };
}

const frame = (seq: number, extra: Record<string, unknown> = {}) => ({
  seq,
  changed: true,
  format: "jpeg",
  width: 1280,
  height: 800,
  frameWidth: 640,
  frameHeight: 400,
  ...extra,
});

describe("watchScreen", () => {
  it("waits through unchanged answers, reads a frame whole and acks it by its seq", async () => {
    const asked: unknown[] = [];
    let watches = 0;
    const watch = watchScreen(
      connection({
        "screen.watch": (p) => {
          asked.push(p.after);
          watches++;
          return watches === 1 ? { seq: 0, changed: false } : frame(watches, { data: Buffer.from("abc").toString("base64"), id: "f", eof: false });
        },
        "screen.read": (p) => ({ data: Buffer.from(p.offset === 3 ? "def" : "").toString("base64"), eof: true }),
      }),
    );
    const first = await watch.next();
    expect(Buffer.from(first.bytes).toString()).toBe("abcdef");
    expect(first).toMatchObject({ seq: 2, width: 1280, frameWidth: 640 });
    await watch.next();
    expect(asked).toEqual([0, 0, 2]);
  });

  it("refuses a frame past 64 MiB, reading no further", async () => {
    const chunk = Buffer.alloc(8 << 20).toString("base64");
    let reads = 0;
    const watch = watchScreen(
      connection({
        "screen.watch": () => frame(1, { data: "", id: "f", eof: false }),
        "screen.read": () => (reads++, { data: chunk, eof: false }),
      }),
    );
    await expect(watch.next()).rejects.toMatchObject({ name: "ScreenWatchError", code: "limit" });
    expect(reads).toBe(9);
  });

  it("keeps at most 8 inputs in flight, and redacts a failed action's words", async () => {
    const held: Array<() => void> = [];
    const watch = watchScreen(
      connection({
        "input.actions": () =>
          new Promise((resolve) => held.push(() => resolve({ done: 0, failed: { index: 0, kind: "invalid", message: "see https://user:pw@example.com/x" } }))),
      }),
    );
    const pending = Array.from({ length: MAX_INPUTS_IN_FLIGHT }, () => watch.act([{ type: "move", point: [1, 1] }]));
    await expect(watch.act([{ type: "move", point: [1, 1] }])).rejects.toBeInstanceOf(ScreenWatchError);
    for (const release of held) release();
    const [first] = await Promise.all(pending);
    expect(first!.failed!.message).not.toContain("example.com");
  });

  it("is closed once closed", async () => {
    const watch = watchScreen(connection({}));
    await watch.close();
    await expect(watch.next()).rejects.toMatchObject({ code: "closed" });
    await expect(watch.act([])).rejects.toMatchObject({ code: "closed" });
  });
});

describe("daemonLiveView, every computerd vendor's watch()", () => {
  const ref = { id: "c1", name: "computer-000000000001", provider: "test" };
  const handlers = (ended: unknown[], frames: ScreenFrame[]) => ({
    frame: (f: ScreenFrame, ack: () => void) => (frames.push(f), ack()),
    ended: (e: unknown) => void ended.push(e),
  });

  it("refuses a computer whose hello declares no screen as unsupported, and lets its connection go", async () => {
    let closed = 0;
    const linux = { ...connection({}), hello: { version: "0", os: "linux", kind: "linux", arch: "amd64", groups: ["exec"] }, close: async () => void closed++ };
    const watch = daemonLiveView({ connect: async () => ok(linux as Connection) });
    const opened = await watch(ref, handlers([], []));
    expect(opened).toMatchObject({ ok: false, error: { code: "unsupported" } });
    expect(opened.ok ? "" : opened.error.message).toMatch(/declares no screen \(its kind is linux\), so it has no live view/);
    expect(closed).toBe(1);
  });

  it("passes connect's refusal on with its words redacted", async () => {
    const watch = daemonLiveView({ connect: async () => fail("gone", "computer-000000000001 is gone at https://user:hunter2@e2b.example/sandboxes/x") });
    const opened = await watch(ref, handlers([], []));
    expect(opened).toMatchObject({ ok: false, error: { code: "gone" } });
    expect(opened.ok ? "" : opened.error.message).not.toMatch(/hunter2|https:/);
  });

  it("gives each frame to handlers.frame, then ended once, as gone, when the connection ends", async () => {
    let n = 0;
    const desktop = connection({
      "screen.watch": () => {
        n++;
        if (n > 2) throw new CallError("closed", "the connection closed", "screen.watch");
        return frame(n, { data: Buffer.from("jpeg").toString("base64"), eof: true });
      },
    });
    const ended: unknown[] = [];
    const frames: ScreenFrame[] = [];
    const opened = await daemonLiveView({ connect: async () => ok(desktop) })(ref, handlers(ended, frames));
    expect(opened.ok).toBe(true);
    await vi.waitFor(() => expect(ended).toHaveLength(1));
    expect(frames.map((f) => f.seq)).toEqual([1, 2]);
    expect(ended[0]).toMatchObject({ code: "gone" });
    if (opened.ok) expect(await opened.value.input([])).toMatchObject({ ok: false, error: { code: "closed" } });
  });
});
