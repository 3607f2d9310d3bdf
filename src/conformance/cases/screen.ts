// screen: screen.shot decodes to its size (and a region to the region's), the desktop fixture's
// colours are where it paints them, and the live view through the provider's watch() gives a
// first frame of the screen's size and a new one when the pointer moves. A browser (no screen.shot,
// no input through the watch) runs screen.watch too: its first frame the size of a page's viewport
// as CDP reads it, and a new one once the browser's pages change.
import type { Action, InputActionsResult, Point } from "../../daemon/protocol.js";
import type { ScreenFrame } from "../../contract/provider.js";
import type { Result } from "../../daemon/result.js";
import type { ComputerClient } from "../../daemon/client.js";
import { call, CaseFailure, check, shown } from "../assert.js";
import { conformanceCase, type CaseContext } from "../case.js";
import { FIXTURE_COLOURS, noFixture, onTheDisplay, startFixture } from "../fixture.js";
import { decodePng, jpegSize } from "../images.js";
import type { Cdp } from "../cdp.js";
import { cdpOf } from "./browser.js";

/** A shot's PNG whole: its first chunk, then screen.read to its end. */
export async function shot(client: ComputerClient, signal: AbortSignal, region?: { x: number; y: number; width: number; height: number }) {
  const first = await call("screen.shot", client.call("screen.shot", region ? { region } : {}, { signal }));
  const parts = [Buffer.from(first.data, "base64")];
  let size = parts[0]!.length;
  let eof = first.eof;
  while (!eof) {
    check(first.id, "screen.shot's first chunk is not the whole PNG and names no id to read the rest by");
    const more = await call("screen.read", client.call("screen.read", { id: first.id!, offset: size }, { signal }));
    const bytes = Buffer.from(more.data, "base64");
    check(bytes.length > 0 || more.eof, "screen.read gave no bytes and no end");
    parts.push(bytes);
    size += bytes.length;
    eof = more.eof;
  }
  let png;
  try {
    png = decodePng(Buffer.concat(parts));
  } catch (error) {
    throw new CaseFailure(`screen.shot's PNG: ${(error as Error).message}`);
  }
  return { ...first, png };
}

type Input = (actions: Action[]) => Promise<Result<InputActionsResult>>;

/**
 * Watches the shared computer through the provider's watch() until onFrame says done (true), the
 * watch ends, or boundMs pass; each frame is acked after onFrame. Closes the watch either way.
 */
function watchUntil(t: CaseContext, onFrame: (frame: ScreenFrame, input: Input) => boolean, boundMs: number, waiting: string): Promise<ScreenFrame[]> {
  const frames: ScreenFrame[] = [];
  return new Promise((resolve, reject) => {
    let done = false;
    let input: Input = async () => ({ ok: false, error: { code: "closed", message: "the watch is not open yet" } });
    const timer = setTimeout(
      () => finish(new CaseFailure(`${waiting} within ${boundMs / 1000} s; frames: ${shown(frames.map((f) => ({ seq: f.seq, cursor: f.cursor })))}`)),
      boundMs,
    );
    const onAbort = () => finish(new CaseFailure(`the case ended waiting for ${waiting}`));
    t.signal.addEventListener("abort", onAbort, { once: true });
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      t.signal.removeEventListener("abort", onAbort);
      void opened.then((w) => (w.ok ? w.value.close() : undefined));
      if (error) reject(error);
      else resolve(frames);
    };
    const opened = t.provider.watch!(
      t.computer,
      {
        frame(frame, ack) {
          frames.push(frame);
          if (onFrame(frame, (actions) => input(actions))) finish();
          else ack();
        },
        ended(error) {
          finish(new CaseFailure(`the watch ended (${error.code}): ${error.message}`));
        },
      },
      { signal: t.signal },
    );
    void opened.then((w) => {
      if (!w.ok) finish(new CaseFailure(`watch() failed (${w.error.code}): ${w.error.message}`));
      else input = (actions) => w.value.input(actions);
    });
  });
}

function frameSize(frame: ScreenFrame): { width: number; height: number } {
  try {
    return frame.format === "png" ? decodePng(frame.bytes) : jpegSize(frame.bytes);
  } catch (error) {
    throw new CaseFailure(`the watch's first frame (${frame.format}): ${(error as Error).message}`);
  }
}

/** The first frame decodes to the size it says; returns it. */
async function firstFrame(t: CaseContext): Promise<ScreenFrame> {
  const [first] = await watchUntil(t, () => true, 20_000, "a first frame");
  const size = frameSize(first!);
  check(
    size.width === first!.frameWidth && size.height === first!.frameHeight,
    `the first frame decodes to ${size.width}x${size.height}, and says ${first!.frameWidth}x${first!.frameHeight}`,
  );
  return first!;
}

/**
 * An expression's value on each page the browser has open (at most 10), each attached flat and let
 * go. A page another case closes meanwhile is passed over; none answering is a failure.
 */
async function onEveryPage(cdp: Cdp, expression: string): Promise<unknown[]> {
  const { targetInfos } = (await cdp.send("Target.getTargets")) as { targetInfos: Array<{ targetId: string; type: string }> };
  const out: unknown[] = [];
  let last = "the browser has no page open";
  for (const page of targetInfos.filter((x) => x.type === "page").slice(0, 10)) {
    try {
      const { sessionId } = (await cdp.send("Target.attachToTarget", { targetId: page.targetId, flatten: true })) as { sessionId: string };
      try {
        const answer = (await cdp.send("Runtime.evaluate", { expression, returnByValue: true }, sessionId)) as { result?: { value?: unknown } };
        out.push(answer.result?.value);
      } finally {
        await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => undefined);
      }
    } catch (error) {
      last = (error as Error).message;
    }
  }
  if (out.length === 0) throw new CaseFailure(`no page of the browser answered over CDP: ${last}`);
  return out;
}

/** screen.watch on a browser: the frame's size against the pages' viewports, and a frame after the pages change. */
async function watchBrowser(t: CaseContext): Promise<void> {
  const first = await firstFrame(t);
  const cdp = await cdpOf(t);
  try {
    const viewports = (await onEveryPage(cdp, "[innerWidth, innerHeight]")) as Array<[number, number]>;
    check(
      viewports.some(([w, h]) => w === first.width && h === first.height),
      `the frame's screen is ${first.width}x${first.height}, and the browser's pages' viewports read ${shown(viewports)}`,
    );
    let changed: Promise<unknown> | undefined;
    let failed: string | undefined;
    await watchUntil(
      t,
      (frame) => {
        if (changed) return frame.seq > 1;
        // The first frame shown, every page's background changes: the screencast's next frame follows the ack.
        changed = onEveryPage(cdp, "document.documentElement.style.background = 'rgb(12, 34, 56)'").catch((error: Error) => (failed = error.message));
        return false;
      },
      20_000,
      "a frame after the browser's pages changed",
    ).catch((error: Error) => {
      throw new CaseFailure(failed ? `the pages could not be changed over CDP: ${failed}` : error.message);
    });
  } finally {
    cdp.close();
  }
}

export const screenCases = [
  conformanceCase("screen.screenshot-size", "core", { groups: ["screen"] }, (t) =>
    onTheDisplay(t, async () => {
      const whole = await shot(t.client, t.signal);
      check(
        whole.png.width === whole.width && whole.png.height === whole.height,
        `the PNG is ${whole.png.width}x${whole.png.height}, and screen.shot says ${whole.width}x${whole.height}`,
      );
      check(whole.scale > 0, `screen.shot's scale is ${whole.scale}, not above 0`);
      const region = { x: 10, y: 20, width: Math.min(100, whole.width - 10), height: Math.min(80, whole.height - 20) };
      const part = await shot(t.client, t.signal, region);
      check(
        part.png.width === region.width && part.png.height === region.height,
        `a region shot of ${region.width}x${region.height} decodes to ${part.png.width}x${part.png.height}`,
      );
      if (t.capabilities.kind !== "desktop") return;
      if (!t.fixture) return noFixture();
      await startFixture(t, t.fixture);
      const painted = await shot(t.client, t.signal);
      for (const { name, point, rgb } of FIXTURE_COLOURS) {
        const got = painted.png.rgb(point[0], point[1]);
        check(shown(got) === shown(rgb), `the fixture's ${name} at ${shown(point)} reads ${shown(got)}, not ${shown(rgb)}`);
      }
    }),
  ),

  conformanceCase("screen.watch", "core", { groups: ["screen"], methods: ["watch"] }, (t) =>
    onTheDisplay(t, async () => {
      const whole = await shot(t.client, t.signal);
      const first = await firstFrame(t);
      check(
        first.width === whole.width && first.height === whole.height,
        `the frame's screen is ${first.width}x${first.height}, and screen.shot reads ${whole.width}x${whole.height}`,
      );
      if (!t.hello.groups.includes("input.pointer")) return;
      const cursor = whole.cursor ?? [0, 0];
      const to: Point = [cursor[0] === 321 ? 322 : 321, cursor[1] === 123 ? 124 : 123];
      let sent = false;
      let failed: string | undefined;
      await watchUntil(
        t,
        (frame, input) => {
          if (sent && frame.cursor?.[0] === to[0] && frame.cursor?.[1] === to[1]) return true;
          if (!sent) {
            sent = true;
            void input([{ type: "move", point: to }]).then((moved) => {
              if (!moved.ok || moved.value.failed) failed = shown(moved);
            });
          }
          return false;
        },
        20_000,
        `a frame with the cursor at ${shown(to)} after a move through the watch's input()`,
      ).catch((error: Error) => {
        throw new CaseFailure(failed ? `the move through the watch's input() failed: ${failed}` : error.message);
      });
    }),
  ),
];

/** screen.watch on a browser, whose screen is its pages' (it declares cdp, not the daemon's screen). */
export const browserScreenCases = [
  conformanceCase("screen.watch", "core", { groups: ["cdp"], methods: ["watch"] }, (t) => onTheDisplay(t, () => watchBrowser(t))),
];
