// An E2B desktop against the Docker-backed fake, its desktop template running Docker's desktop
// image (Xvfb on the set-up's base): the X server started through computerd as the computer's
// user, hello declaring the display, the screen answered by computerd's shim, the live view through
// watch() (refused on a linux computer); a desktop whose X
// server has gone refused by connect; a template with no X server refused in words, nothing left.
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { ScreenFrame } from "../../src/contract/provider.js";
import { create as dockerProvider } from "../../src/docker/create.js";
import { create } from "../../src/e2b/create.js";
import { orThrow } from "../../src/daemon/result.js";
import { useE2BFake } from "../support/e2b-helpers.js";
import { toolchain } from "../support/toolchain.js";

const KEY = `e2b_test_${process.pid}`;
const templates: Record<string, string> = {};
const fake = useE2BFake(KEY, templates);
// No kind option: E2B's computer is a desktop unless a spec says kind linux (the spec's default).
const provider = () => create({ sdk: fake, apiKey: KEY, daemonPath: toolchain().daemon.amd64, timeouts: { pollMs: 100 } });
const spec = { image: "desktop", lifetimeMs: 600_000, network: "none" as const, labels: { "agentrun.test": "e2b-desktop" } };

beforeAll(async () => {
  templates.desktop = orThrow(await dockerProvider({ daemonPath: toolchain().daemon.amd64, desktop: {} }).image());
}, 600_000);

/** Each Xvfb in the computer with its real uid, read from /proc by a program of the computer's user. */
const XVFB_UIDS = 'for p in /proc/[0-9]*; do case "$(tr "\\0" " " < $p/cmdline 2>/dev/null)" in Xvfb*) awk "/^Uid:/{print \\$2}" $p/status;; esac; done';

describe("an E2B desktop on the fake", () => {
  it("starts Xvfb through computerd as the computer's user, declares the display in hello, and answers screen.shot", async () => {
    const p = provider();
    const ref = orThrow(await p.create(spec));
    try {
      expect(ref.spec).toMatchObject({ image: "desktop", kind: "desktop", user: "2510:2510" });
      expect(ref.hello).toMatchObject({ kind: "desktop" });
      expect(ref.hello?.groups).toEqual(expect.arrayContaining(["screen", "input.pointer", "input.keys"]));
      const conn = orThrow(await p.connect(ref));
      try {
        const uids = await conn.client.call("exec.run", { argv: ["sh", "-c", XVFB_UIDS], timeoutMs: 10_000 });
        expect(Buffer.from(uids.stdout, "base64").toString()).toBe("2510\n");
        const shot = await conn.client.call("screen.shot", {});
        expect([shot.width, shot.height]).toEqual([1280, 800]);
      } finally {
        await conn.close();
      }
      expect(orThrow(await p.attach({ id: ref.id })).spec).toMatchObject({ kind: "desktop" });
    } finally {
      orThrow(await p.release(ref, "delete"));
    }
    expect(await fake.containers()).toEqual([]);
  }, 240_000);

  it("gives the live view through watch(): frames of the screen's size, and input on the watch's connection", async () => {
    const p = provider();
    const ref = orThrow(await p.create(spec));
    try {
      const frames: ScreenFrame[] = [];
      const ended: unknown[] = [];
      const watch = orThrow(await p.watch(ref, { frame: (f, ack) => (frames.push(f), ack()), ended: (e) => void ended.push(e) }, { maxWidth: 640 }));
      try {
        await vi.waitFor(() => expect(frames.length).toBeGreaterThan(0), { timeout: 20_000 });
        expect(frames[0]).toMatchObject({ format: "jpeg", width: 1280, height: 800, frameWidth: 640, frameHeight: 400 });
        expect(orThrow(await watch.input([{ type: "move", point: [100, 100] }]))).toMatchObject({ done: 1 });
      } finally {
        await watch.close();
      }
      expect(ended).toEqual([]);
    } finally {
      orThrow(await p.release(ref, "delete"));
    }
  }, 240_000);

  it("makes kind linux when a spec says so, and refuses its live view as unsupported", async () => {
    const p = provider();
    const ref = orThrow(await p.create({ ...spec, image: "base", kind: "linux" }));
    expect(ref.spec).toMatchObject({ image: "base", kind: "linux" });
    try {
      const watched = await p.watch(ref, { frame: () => undefined, ended: () => undefined });
      expect(watched).toMatchObject({ ok: false, error: { code: "unsupported" } });
    } finally {
      orThrow(await p.release(ref, "delete"));
    }
  }, 240_000);

  it("refuses to connect to a desktop whose X server has gone: its hello reads kind linux", async () => {
    const p = provider();
    const ref = orThrow(await p.create(spec));
    try {
      const conn = orThrow(await p.connect(ref));
      try {
        const { processes } = await conn.client.call("process.list", {});
        const server = processes.find((x) => x.argv[0] === "Xvfb");
        expect(server).toBeDefined();
        await conn.client.call("process.signal", { id: server!.id, signal: "KILL" });
        await conn.client.call("process.wait", { id: server!.id, timeoutMs: 10_000 });
      } finally {
        await conn.close();
      }
      const again = await p.connect(ref);
      expect(again).toMatchObject({ ok: false, error: { code: "refused" } });
      expect(again.ok ? "" : again.error.message).toMatch(/the daemon reports kind linux, not desktop/);
    } finally {
      orThrow(await p.release(ref, "delete"));
    }
  }, 240_000);

  it("refuses a desktop on a template with no X server in words, and leaves nothing", async () => {
    const made = await provider().create({ ...spec, image: "base" });
    expect(made).toMatchObject({ ok: false, error: { code: "failed" } });
    expect(made.ok ? "" : made.error.message).toMatch(/desktop: the X server \(Xvfb :0 -screen 0 1280x800x24 -nolisten tcp\) could not be started/);
    expect(await fake.containers()).toEqual([]);
  }, 240_000);
});
