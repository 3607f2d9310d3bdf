// startDisplay against a daemon that never declares the display: the wait is bounded (timeout,
// the server stopped), an abort ends it (aborted, the server stopped), and a server that ends
// first is named with its last words. The client is a stand-in that answers as computerd does.
import { describe, expect, it } from "vitest";
import type { ComputerClient } from "../../src/daemon/client.js";
import { startDisplay } from "../../src/daemon/desktop.js";

function daemon(opts: { running?: boolean; stderr?: string; declareAfter?: number } = {}) {
  const calls: Array<[string, unknown]> = [];
  let hellos = 0;
  const client = {
    async call(method: string, params: unknown) {
      calls.push([method, params]);
      switch (method) {
        case "process.start":
          return { id: "p1", pid: 10 };
        case "hello": {
          hellos++;
          const shown = opts.declareAfter !== undefined && hellos > opts.declareAfter;
          return {
            version: "0",
            os: "linux",
            arch: "amd64",
            kind: shown ? "desktop" : "linux",
            groups: ["exec", "files", "processes", ...(shown ? ["screen", "input.pointer", "input.keys"] : [])],
          };
        }
        case "process.wait":
          return opts.running === false ? { running: false, exitCode: 1, signal: null } : { running: true, exitCode: null, signal: null };
        case "process.read":
          return { data: Buffer.from(opts.stderr ?? "").toString("base64"), nextOffset: 0, dropped: 0, exited: true, size: 0 };
        default:
          return {};
      }
    },
    request: async () => ({}),
    close: async () => {},
  } as unknown as ComputerClient;
  return { client, calls };
}

describe("startDisplay", () => {
  it("answers the hello that declares the display, the server started with DISPLAY as any program", async () => {
    const d = daemon({ declareAfter: 2 });
    const shown = await startDisplay(d.client, { display: ":3" });
    expect(shown).toMatchObject({ ok: true, value: { kind: "desktop" } });
    // A lock and socket a snapshot's parent left are removed before the server starts (it refuses to start on them).
    expect(d.calls.slice(0, 3)).toEqual([
      ["files.remove", { path: "/tmp/.X3-lock" }],
      ["files.remove", { path: "/tmp/.X11-unix/X3" }],
      ["process.start", { argv: ["Xvfb", ":3", "-screen", "0", "1280x800x24", "-nolisten", "tcp"], env: { DISPLAY: ":3" } }],
    ]);
  });

  it("times out in words and stops the server", async () => {
    const d = daemon();
    const shown = await startDisplay(d.client, { timeoutMs: 300 });
    expect(shown).toMatchObject({ ok: false, error: { code: "timeout", message: "the display :0 did not answer within 0.3 s; the X server was stopped" } });
    expect(d.calls).toContainEqual(["process.signal", { id: "p1", signal: "KILL" }]);
  });

  it("ends at an abort, and stops the server", async () => {
    const d = daemon();
    const shown = await startDisplay(d.client, { signal: AbortSignal.timeout(200) });
    expect(shown).toMatchObject({ ok: false, error: { code: "aborted" } });
    expect(d.calls).toContainEqual(["process.signal", { id: "p1", signal: "KILL" }]);
  });

  it("names a server that ended first, with its last words", async () => {
    const d = daemon({ running: false, stderr: "a\nb\n(EE) Cannot establish any listening sockets\n" });
    const shown = await startDisplay(d.client, { server: ["Xvfb", ":0"] });
    expect(shown).toMatchObject({
      ok: false,
      error: {
        code: "failed",
        message: "the X server (Xvfb :0) exited with code 1 before the display answered: a / b / (EE) Cannot establish any listening sockets",
      },
    });
  });
});
