// A Docker desktop on the real engine: made with its X server started through the daemon, shot,
// clicked and typed into (read back through the desktop fixture's log), held to its groups by
// the drift check once its display goes, refused in words when its server cannot start, and
// released with nothing left.
import { readFileSync } from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { ComputerClient } from "../../src/daemon/client.js";
import { decodePng, jpegSize } from "../../src/conformance/images.js";
import { readFile, writeFile } from "../../src/daemon/files.js";
import type { ComputerRef, ScreenFrame, ScreenWatch } from "../../src/contract/provider.js";
import { cleanup, provider, spec, testLabel, toolchain, withLabel } from "../support/docker-helpers.js";

const made = cleanup();
const desktops = provider({ desktop: {} });
const FIXTURE = path.join(toolchain.root, "dist", "computerd-fixture-linux-amd64");
let image = "";

beforeAll(async () => {
  const ready = await desktops.image();
  if (!ready.ok) throw new Error(ready.error.message);
  image = ready.value;
}, 600_000);

async function desktop(labels: Record<string, string>): Promise<ComputerRef> {
  const result = await desktops.create(spec({ image, labels }));
  if (result.ok) made.track(result.value.name);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value;
}

async function shot(client: ComputerClient) {
  const first = await client.call("screen.shot", {});
  const parts = [Buffer.from(first.data, "base64")];
  for (let eof = first.eof, size = parts[0]!.length; !eof;) {
    const more = await client.call("screen.read", { id: first.id!, offset: size });
    parts.push(Buffer.from(more.data, "base64"));
    size += parts.at(-1)!.length;
    eof = more.eof;
  }
  return { ...first, png: decodePng(Buffer.concat(parts)) };
}

/** The fixture written in and started on :0; its log's lines once until holds for them. */
async function fixture(client: ComputerClient) {
  const dir = "/work/fixture";
  expect((await writeFile(client, `${dir}/computerd-fixture`, readFileSync(FIXTURE), { mode: 0o755, parents: true })).ok).toBe(true);
  await client.call("process.start", { argv: [`${dir}/computerd-fixture`, "--log", `${dir}/log`], env: { DISPLAY: ":0" } });
  const lines = async () => {
    const read = await readFile(client, `${dir}/log`);
    return read.ok
      ? Buffer.from(read.value)
          .toString("utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
      : [];
  };
  const until = async (done: (events: Record<string, unknown>[]) => boolean) => {
    for (let i = 0; i < 100; i++) {
      const seen = await lines();
      if (done(seen)) return seen;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`the fixture's log never showed it: ${JSON.stringify(await lines())}`);
  };
  await until((e) => e[0]?.event === "ready");
  return until;
}

describe("a Docker desktop", () => {
  it("is made with its display, shot, clicked and typed into, and released with nothing left", async () => {
    const labels = testLabel();
    const ref = await desktop(labels);
    expect(ref.spec?.kind).toBe("desktop");
    expect(ref.hello).toMatchObject({ kind: "desktop", groups: ["exec", "files", "processes", "screen", "input.pointer", "input.keys"] });
    const connected = await desktops.connect({ id: ref.id, name: ref.name, provider: "docker" });
    if (!connected.ok) throw new Error(connected.error.message);
    const { client } = connected.value;
    try {
      const until = await fixture(client);
      const screen = await shot(client);
      expect([screen.width, screen.height, screen.png.width, screen.png.height]).toEqual([1280, 800, 1280, 800]);
      expect([screen.png.rgb(50, 50), screen.png.rgb(150, 150), screen.png.rgb(400, 400)]).toEqual([
        [255, 0, 0],
        [0, 0, 255],
        [0, 0, 0],
      ]);
      expect(
        await client.call("input.actions", {
          actions: [
            { type: "click", point: [30, 40] },
            { type: "type", text: "Hi, desktop!" },
          ],
        }),
      ).toEqual({ done: 2 });
      const seen = await until((e) => e.filter((x) => x.event === "text").length >= 12);
      expect(seen.find((e) => e.event === "down")).toMatchObject({ point: [30, 40], count: 1 });
      expect(
        seen
          .filter((e) => e.event === "text")
          .map((e) => e.text)
          .join(""),
      ).toBe("Hi, desktop!");
    } finally {
      await connected.value.close();
    }
    expect(await desktops.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    expect(withLabel(labels)).toEqual([]);
  });

  it("is held to its groups by the drift check once its X server has gone", async () => {
    const ref = await desktop(testLabel());
    const connected = await desktops.connect(ref);
    if (!connected.ok) throw new Error(connected.error.message);
    const listed = await connected.value.client.call("process.list", {});
    const server = listed.processes.find((p) => p.argv[0] === "Xvfb");
    expect(server).toBeDefined();
    await connected.value.client.call("process.signal", { id: server!.id, signal: "KILL" });
    await connected.value.client.call("process.wait", { id: server!.id, timeoutMs: 10_000 });
    await connected.value.close();
    const read = await desktops.read({ id: ref.name });
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.drift).toEqual(expect.arrayContaining(["the daemon's kind is linux, not desktop"]));
    const again = await desktops.connect({ id: ref.id, name: ref.name, provider: "docker" });
    expect(again).toMatchObject({ ok: false, error: { code: "refused" } });
    expect(again.ok ? "" : again.error.message).toMatch(/kind linux, not desktop/);
  });

  it("is refused in words, with nothing left, when its X server ends before the display answers", async () => {
    const labels = testLabel();
    const broken = provider({ desktop: { server: ["sh", "-c", "echo no display here >&2; exit 3"] } });
    const result = await broken.create(spec({ image, labels }));
    if (result.ok) made.track(result.value.name);
    expect(result).toMatchObject({ ok: false, error: { code: "failed" } });
    expect(result.ok ? "" : result.error.message).toMatch(
      /the X server \(sh -c .*\) exited with code 3 before the display answered: no display here; computer-[0-9a-f]{12} was deleted/,
    );
    expect(withLabel(labels)).toEqual([]);
  });

  it("is a spec's kind on a linux provider too, and a linux computer declares no screen", async () => {
    const linux = provider();
    const labels = testLabel();
    const asked = await linux.create(spec({ image, labels, kind: "desktop" }));
    if (asked.ok) made.track(asked.value.name);
    expect(asked).toMatchObject({ ok: true, value: { spec: { kind: "desktop" }, hello: { kind: "desktop" } } });
    const plain = await linux.create(spec({ image, labels }));
    if (plain.ok) made.track(plain.value.name);
    expect(plain).toMatchObject({ ok: true, value: { hello: { kind: "linux", groups: ["exec", "files", "processes"] } } });
  });

  it("is watched: frames paced by ack, a pointer move through the watch's input is the next frame's cursor, and close ends it quietly", async () => {
    const ref = await desktop(testLabel());
    const frames: ScreenFrame[] = [];
    const ended: unknown[] = [];
    const acks: Array<() => void> = [];
    const opened = await desktops.watch(ref, { frame: (f, ack) => (frames.push(f), acks.push(ack)), ended: (e) => ended.push(e) }, { maxWidth: 640 });
    if (!opened.ok) throw new Error(opened.error.message);
    const watch: ScreenWatch = opened.value;
    const waitFor = async (n: number) => {
      for (let i = 0; i < 100 && frames.length < n; i++) await new Promise((r) => setTimeout(r, 100));
      expect(frames.length).toBe(n);
    };
    await waitFor(1);
    expect(frames[0]).toMatchObject({ seq: 1, format: "jpeg", width: 1280, height: 800, frameWidth: 640, frameHeight: 400 });
    expect(jpegSize(frames[0]!.bytes)).toEqual({ width: 640, height: 400 });
    expect(await watch.input([{ type: "move", point: [500, 300] }])).toEqual({ ok: true, value: { done: 1 } });
    await new Promise((r) => setTimeout(r, 300));
    expect(frames.length).toBe(1); // not acked: no next frame asked for
    acks.shift()!();
    await waitFor(2);
    expect(frames[1]!.cursor).toEqual([500, 300]);
    await watch.close();
    expect(await watch.input([{ type: "move", point: [1, 1] }])).toMatchObject({ ok: false, error: { code: "closed" } });
    expect(ended).toEqual([]);
  });

  it("has no live view on a linux computer: watch is unsupported in words", async () => {
    const linux = provider();
    const made_ = await linux.create(spec({ image, labels: testLabel() }));
    if (!made_.ok) throw new Error(made_.error.message);
    made.track(made_.value.name);
    const opened = await linux.watch(made_.value, { frame: () => {}, ended: () => {} });
    expect(opened).toMatchObject({ ok: false, error: { code: "unsupported" } });
    expect(opened.ok ? "" : opened.error.message).toMatch(/declares no screen \(its kind is linux\)/);
  });
});
