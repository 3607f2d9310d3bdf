// Live screens: what each open page looks at, and only that. A desktop or phone tile in view gets
// one screen.shot every 2 s (a phone's through the harness's screencap), a browser tile one frame
// of its live view (CDP's screencast) every 2 s; the computer a page opened gets the provider's
// live view (the daemon's screen watch, the phone client's, a browser's screencast) as fast as the
// page takes it, a desktop or phone without one shots 4 times a second. Nothing is read for a tile
// no page shows, and every connection and watch is let go once no page shows its computer.
import { boundedBy } from "../../daemon/bound.js";
import type { Action } from "../../daemon/protocol.js";
import type { ComputerProvider, ComputerRef, Connection, ScreenWatch } from "../../contract/provider.js";
import { fail, ok, type Result } from "../../daemon/result.js";

/** A tile in view: one shot each this often. */
export const LOW_RATE_MS = 2_000;
/** The opened computer when its daemon has no watch: one shot each this often. */
export const FULL_RATE_SHOT_MS = 250;
/** A watch's frames no faster than this apart (the page's own pace). */
const WATCH_PACE_MS = 100;
/** One shot, read whole. */
const SHOT_BOUND_MS = 10_000;

export interface Frame {
  seq: number;
  type: "image/png" | "image/jpeg";
  bytes: Buffer;
  /** The screen's pixels: the input space a click is given in. */
  width: number;
  height: number;
}

/** What the page is told of a new frame: it then fetches the frame by its seq. */
export interface ScreenEvent {
  name: string;
  seq: number;
  width: number;
  height: number;
}

/** What one page looks at: the tiles in view, and the computer it opened. */
export interface View {
  visible: string[];
  opened: string | null;
}

/** How a screen is read: a desktop's and a phone's by shots (a live view when opened), a browser's by its screencast. */
export type ScreenKind = "desktop" | "browser" | "phone";

/** A kind's screen, or undefined for a kind with none (linux). */
export function screenKindOf(kind: string): ScreenKind | undefined {
  if (kind === "desktop" || kind === "browser") return kind;
  return kind === "android" || kind === "ios" ? "phone" : undefined;
}

/** A computer with a screen, as the fleet's last read gave it. */
export interface ScreenOf {
  ref: ComputerRef;
  kind: ScreenKind;
}

/** A live view running for a computer: its frames this far apart at least. */
interface Watching {
  paceMs: number;
  stopped: boolean;
  watch?: ScreenWatch;
  /** A desktop's shots, when it has no live view. */
  timer?: NodeJS.Timeout;
}

const typeOf = (bytes: Buffer): Frame["type"] => (bytes[0] === 0xff && bytes[1] === 0xd8 ? "image/jpeg" : "image/png");

export class Screens {
  private views = new Map<string, View>();
  private frames = new Map<string, Frame>();
  private connections = new Map<string, Promise<Result<Connection>>>();
  private watching = new Map<string, Watching>();
  private shooting = new Set<string>();
  private lowTimer: NodeJS.Timeout | undefined;
  private seq = 0;
  private closed = false;

  constructor(
    private readonly provider: ComputerProvider,
    /** The computer's ref and kind, when the last read listed it as running with a screen. */
    private readonly screenOf: (name: string) => ScreenOf | undefined,
    private readonly notify: (event: ScreenEvent) => void,
    private readonly signal: AbortSignal,
  ) {}

  /** What a page looks at now; the reads follow at once. */
  view(client: string, view: View): void {
    if (this.closed) return;
    this.views.set(client, { visible: [...new Set(view.visible)].slice(0, 500), opened: view.opened });
    this.settle();
  }

  /** A page gone: what it looked at is let go. */
  drop(client: string): void {
    this.views.delete(client);
    this.settle();
  }

  /** The latest frame of a computer, while some page looks at it. */
  latest(name: string): Frame | undefined {
    return this.frames.get(name);
  }

  /** The computers in view at the low rate, and those opened at the full rate. */
  wanted(): { low: Set<string>; full: Set<string> } {
    const full = new Set([...this.views.values()].flatMap((v) => (v.opened ? [v.opened] : [])));
    const low = new Set([...this.views.values()].flatMap((v) => v.visible).filter((n) => !full.has(n)));
    return { low, full };
  }

  /**
   * Starts what is wanted and not running, stops what runs and is not wanted (or not at its pace):
   * on each change of a view, and of the fleet (a computer stopped, or come back).
   */
  settle(): void {
    if (this.closed) return;
    const { low, full } = this.wanted();
    const paces = new Map<string, number>();
    for (const name of full) if (this.screenOf(name)) paces.set(name, WATCH_PACE_MS);
    for (const name of low) if (this.screenOf(name)?.kind === "browser") paces.set(name, LOW_RATE_MS);
    for (const [name, entry] of this.watching) if (paces.get(name) !== entry.paceMs) this.stopWatch(name, entry);
    for (const [name, paceMs] of paces) if (!this.watching.has(name)) this.startWatch(name, paceMs);
    if (low.size > 0 && !this.lowTimer) {
      this.lowTimer = setInterval(() => this.lowTick(), LOW_RATE_MS);
      this.lowTick();
    }
    if (low.size === 0 && this.lowTimer) {
      clearInterval(this.lowTimer);
      this.lowTimer = undefined;
    }
    for (const name of [...this.connections.keys()]) if (!low.has(name) && !full.has(name)) this.letGo(name);
    for (const name of [...this.frames.keys()]) if (!low.has(name) && !full.has(name)) this.frames.delete(name);
  }

  /** A desktop or phone tile in view: one shot (a browser's screencast runs on its own). */
  private lowTick(): void {
    for (const name of this.wanted().low) if (this.shotsFor(name)) void this.shoot(name);
  }

  /** Its screen is read by shots: a desktop's or a phone's. */
  private shotsFor(name: string): boolean {
    const kind = this.screenOf(name)?.kind;
    return kind === "desktop" || kind === "phone";
  }

  private keep(name: string, frame: Omit<Frame, "seq">): void {
    const seq = ++this.seq;
    this.frames.set(name, { ...frame, seq });
    this.notify({ name, seq, width: frame.width, height: frame.height });
  }

  /** The computer's connection, opened once and kept while a page looks at it. */
  private connection(name: string): Promise<Result<Connection>> {
    const had = this.connections.get(name);
    if (had) return had;
    const ref = this.screenOf(name)?.ref;
    const opened = ref ? this.provider.connect(ref, { signal: this.signal }) : Promise.resolve(fail("not_found", `${name} is not running with a screen`));
    this.connections.set(name, opened);
    void opened.then((c) => {
      if (!c.ok) this.connections.delete(name);
    });
    return opened;
  }

  private letGo(name: string): void {
    const had = this.connections.get(name);
    this.connections.delete(name);
    void had?.then((c) => (c.ok ? c.value.close().catch(() => undefined) : undefined));
  }

  /** One shot of a desktop's or phone's screen, kept and told; one at a time per computer. */
  private async shoot(name: string): Promise<void> {
    if (this.shooting.has(name) || this.closed) return;
    this.shooting.add(name);
    try {
      const connected = await this.connection(name);
      if (!connected.ok) return;
      const { signal } = boundedBy(SHOT_BOUND_MS, this.signal);
      const { client } = connected.value;
      const first = await client.call("screen.shot", {}, { signal });
      const parts = [Buffer.from(first.data, "base64")];
      for (let eof = first.eof, size = parts[0]!.length; !eof;) {
        const more = await client.call("screen.read", { id: first.id!, offset: size }, { signal });
        parts.push(Buffer.from(more.data, "base64"));
        size += parts.at(-1)!.length;
        eof = more.eof || more.data.length === 0;
      }
      if (this.closed) return;
      const bytes = Buffer.concat(parts);
      this.keep(name, { type: typeOf(bytes), bytes, width: first.width, height: first.height });
    } catch {
      // A connection that failed is opened again on the next shot.
      this.letGo(name);
    } finally {
      this.shooting.delete(name);
    }
  }

  /** The provider's live view at a pace (each frame acked paceMs after it came); a desktop or phone without one gets shots. */
  private startWatch(name: string, paceMs: number): void {
    const entry: Watching = { paceMs, stopped: false };
    this.watching.set(name, entry);
    const screen = this.screenOf(name);
    const shots = () => {
      if (entry.stopped || !this.shotsFor(name)) return;
      entry.timer = setInterval(() => void this.shoot(name), FULL_RATE_SHOT_MS);
      void this.shoot(name);
    };
    if (!this.provider.watch || !screen) return shots();
    void this.provider
      .watch(
        screen.ref,
        {
          frame: (frame, ack) => {
            if (entry.stopped) return;
            this.keep(name, {
              type: frame.format === "jpeg" ? "image/jpeg" : "image/png",
              bytes: Buffer.from(frame.bytes),
              width: frame.width,
              height: frame.height,
            });
            setTimeout(ack, paceMs);
          },
          ended: () => {
            entry.watch = undefined;
            shots();
          },
        },
        { signal: this.signal, maxWidth: 1280 },
      )
      .then((watched) => {
        if (!watched.ok) return shots();
        if (entry.stopped) return void watched.value.close();
        entry.watch = watched.value;
      });
  }

  private stopWatch(name: string, entry: Watching): void {
    entry.stopped = true;
    clearInterval(entry.timer);
    void entry.watch?.close();
    this.watching.delete(name);
  }

  /** Input to a desktop or a phone a page looks at: on its watch when it has one, else on its connection. */
  async input(name: string, actions: Action[]): Promise<Result<{ done: number }>> {
    const screen = this.screenOf(name);
    if (screen?.kind !== "desktop" && screen?.kind !== "phone") return fail("not_found", `${name} is not a running desktop or phone`);
    const watch = this.watching.get(name)?.watch;
    if (watch) {
      const sent = await watch.input(actions);
      if (!sent.ok) return sent;
      return sent.value.failed ? fail("failed", sent.value.failed.message) : ok({ done: sent.value.done });
    }
    const connected = await this.connection(name);
    if (!connected.ok) return connected;
    try {
      const done = await connected.value.client.call("input.actions", { actions }, { signal: boundedBy(SHOT_BOUND_MS, this.signal).signal });
      return done.failed ? fail("failed", done.failed.message) : ok({ done: done.done });
    } catch (error) {
      return fail("failed", error instanceof Error ? error.message : String(error));
    }
  }

  /** Every watch, timer and connection let go. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.lowTimer);
    for (const [name, entry] of this.watching) this.stopWatch(name, entry);
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.then((r) => (r.ok ? r.value.close().catch(() => undefined) : undefined))));
  }
}
