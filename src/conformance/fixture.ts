// The desktop fixture's contract: computerd-fixture (daemon/cmd/fixture), a 200x200 window at
// (0, 0) painted red, green, blue and yellow clockwise from the top left, that takes the
// keyboard's focus and logs each input event as one JSON line. A case writes it into the
// computer with files.write, starts it with process.start on the display, reads its log with
// files.read, and stops it when the case ends.
import { promises as fs } from "node:fs";
import { DEFAULT_DISPLAY } from "../daemon/desktop.js";
import { readFile, writeFile } from "../daemon/files.js";
import type { Point } from "../daemon/protocol.js";
import { call, CaseFailure, check, must, shown } from "./assert.js";
import { type CaseContext, Skip } from "./case.js";

/** The window's side, and each colour at the middle of its quarter. */
export const FIXTURE_SIZE = 200;
export const FIXTURE_COLOURS: ReadonlyArray<{ name: string; point: Point; rgb: [number, number, number] }> = [
  { name: "red", point: [50, 50], rgb: [255, 0, 0] },
  { name: "green", point: [150, 50], rgb: [0, 255, 0] },
  { name: "blue", point: [150, 150], rgb: [0, 0, 255] },
  { name: "yellow", point: [50, 150], rgb: [255, 255, 0] },
];

/** One line of the fixture's log (the touch events are the phone fixture app's). */
export type FixtureEvent =
  | { event: "ready"; width: number; height: number }
  | { event: "down"; button: "left" | "middle" | "right"; point: Point; count: number }
  | { event: "up"; button: "left" | "middle" | "right"; point: Point }
  | { event: "wheel"; dx: number; dy: number; point: Point }
  | { event: "key"; key: string; keysym: number; modifiers: string[] | null }
  | { event: "text"; text: string }
  | { event: "touch"; finger: number; phase: "down" | "move" | "up"; point: Point };

/** The fixture app for an Android phone: installed with apps.install and launched; it logs as the desktop fixture does. */
export const FIXTURE_APP = "ai.agentrun.fixture";
export const FIXTURE_BUTTON = { id: `${FIXTURE_APP}:id/button`, text: "agentrun fixture" } as const;
/** The view the fixture app shows its log in, one JSON line an event, for a phone that reads its screen through apps.ui_tree. */
export const FIXTURE_LOG_VIEW = `${FIXTURE_APP}:id/log`;

export interface RunningFixture {
  /** Every event logged so far, ready first. */
  events(): Promise<FixtureEvent[]>;
  /** The events once done holds for them, read again until then (10 s at most). */
  until(done: (events: FixtureEvent[]) => boolean, what: string): Promise<FixtureEvent[]>;
}

const displays = new WeakMap<object, Promise<unknown>>();
/** Each case's fixtures, stopped before the display is another case's. */
const started = new WeakMap<CaseContext, Array<() => Promise<void>>>();

/**
 * Runs a case that uses the shared computer's display after the others that do: the suite runs
 * cases side by side, and two fixtures (or a fixture and a pointer move) on one screen would read
 * each other's input.
 */
export function onTheDisplay<T>(t: CaseContext, run: () => Promise<T>): Promise<T> {
  const key = t.computer;
  const before = displays.get(key) ?? Promise.resolve();
  const mine = before
    .catch(() => undefined)
    .then(async () => {
      try {
        return await run();
      } finally {
        await Promise.all((started.get(t) ?? []).map((stop) => stop()));
      }
    });
  displays.set(
    key,
    mine.catch(() => undefined),
  );
  return mine;
}

/** A case that needs the fixture and was given none skips: so Core cannot pass without it. */
export function noFixture(): Skip {
  return new Skip("no input fixture was given (--fixture <path>: computerd-fixture for a desktop, the fixture APK for an Android phone)");
}

/**
 * The fixture written into the case's directory and started on the display, once its log says
 * ready; stopped when the case ends (its signal), even when it never logged ready.
 */
export async function startFixture(t: CaseContext, fixture: string): Promise<RunningFixture> {
  const bytes = await fs.readFile(fixture).catch((error: Error) => {
    throw new CaseFailure(`the fixture ${fixture} could not be read: ${error.message}`);
  });
  const binary = `${t.dir}/computerd-fixture`;
  const log = `${t.dir}/fixture.log`;
  must(await writeFile(t.client, binary, bytes, { mode: 0o755, signal: t.signal }), `writing the fixture to ${binary}`);
  const launched = await call(
    "process.start of the fixture",
    t.client.call("process.start", { argv: [binary, "--log", log], env: { DISPLAY: DEFAULT_DISPLAY } }, { signal: t.signal }),
  );
  const { id } = launched;
  // Stopped and waited for (10 s at most), on the client alone: the case's signal may have ended.
  const stop = async () => {
    await t.client.call("process.signal", { id, signal: "KILL" }).catch(() => undefined);
    await t.client.call("process.wait", { id, timeoutMs: 10_000 }).catch(() => undefined);
  };
  started.set(t, [...(started.get(t) ?? []), stop]);
  if (t.signal.aborted) void stop();
  else t.signal.addEventListener("abort", () => void stop(), { once: true });
  const events = async (): Promise<FixtureEvent[]> => {
    const read = await readFile(t.client, log, { signal: t.signal });
    if (!read.ok) return [];
    return Buffer.from(read.value)
      .toString("utf8")
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        try {
          return JSON.parse(line) as FixtureEvent;
        } catch {
          throw new CaseFailure(`the fixture logged a line that is not JSON: ${shown(line)}`);
        }
      });
  };
  const until = async (done: (events: FixtureEvent[]) => boolean, what: string) => {
    const end = Date.now() + 10_000;
    for (;;) {
      const seen = await events();
      if (done(seen)) return seen;
      if (Date.now() >= end || t.signal.aborted) throw new CaseFailure(`the fixture's log never showed ${what} within 10 s; it has ${shown(seen, 600)}`);
      await t.sleep(100);
    }
  };
  const ready = await until((seen) => seen.length > 0, "its ready line").catch(async (error: Error) => {
    const state = await t.client.call("process.wait", { id, timeoutMs: 0 }).catch(() => undefined);
    const err = await t.client.call("process.read", { id, stream: "stderr", offset: 0 }).catch(() => undefined);
    const words = err ? Buffer.from(err.data, "base64").toString("utf8").trim() : "";
    throw new CaseFailure(`${error.message}${state && !state.running ? `; it ended (${shown(state)})${words ? `: ${words}` : ""}` : ""}`);
  });
  check(ready[0]?.event === "ready", `the fixture's first line is ${shown(ready[0])}, not ready`);
  // Each case reads from after ready: what came before is the fixture's start.
  const from = ready.length;
  return {
    events: async () => (await events()).slice(from),
    until: async (done, what) => (await until((seen) => done(seen.slice(from)), what)).slice(from),
  };
}
