// The watch loop: at each pace the provider's list alone (Docker: one engine call, no daemon
// reached), and a computer read back in full (its daemon reached, its drift checked, as refresh
// does) only when its listing changed, when its last read-back is FULL_READ_PACES paces old, or
// at once when a person acted; never two reads at once, each listener told when the tiles changed
// (or the read failed, or came back), so the page stays current with no read of its own and a
// fleet at rest is not woken for it.
import type { ComputerInfo, ComputerProvider } from "../../contract/provider.js";
import { type Listing, listInfos, readEach, relisted } from "../../fleet/listing.js";
import { BY_RUN, type Group, type Grouping, groupTiles, type Tile, tileOf } from "./fleet.js";
import { type ScreenOf, screenKindOf } from "./screens.js";

/**
 * A computer its list shows unchanged is read back in full once in this many paces (a minute at
 * the default 5 s): what list() cannot see (a daemon's drift, a restart in between) shows then.
 */
export const FULL_READ_PACES = 12;

export interface FleetState {
  groups: Group[];
  /** When the read that gave the tiles ended, an ISO time; null before the first. */
  at: string | null;
  /** Why the last read failed (the tiles are then the read's before), or null. */
  error: string | null;
}

export type Listener = (state: FleetState) => void;

export interface WatchOptions {
  /** Only the computers carrying every one of these (all the provider lists when none). */
  labels: Record<string, string>;
  /** The pace: the list is read this long after the last read ended. */
  everyMs: number;
  /** Each computer read back in full at least this often (default FULL_READ_PACES paces). */
  fullEveryMs?: number;
  signal: AbortSignal;
  /** The label keys whose values a computer's tile never shows (its stack declares them secret). */
  secretLabels?: (name: string) => ReadonlySet<string>;
  /** How the tiles are grouped (default by run label). */
  grouping?: Grouping;
}

/** What of a listing, when it changes, sends the computer to a full read-back. */
function listed(info: ComputerInfo): string {
  const labels = Object.entries(info.labels).sort(([a], [b]) => a.localeCompare(b));
  return JSON.stringify([info.ref.id, info.state, labels, info.deadline?.getTime() ?? null, info.network, info.mount ?? null]);
}

export class FleetWatch {
  private state: FleetState = { groups: [], at: null, error: null };
  private listings = new Map<string, Listing>();
  private tiles = new Map<string, Tile>();
  /** When each computer was last read back in full, in ms. */
  private readAt = new Map<string, number>();
  private listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  /** The next read reads every computer back in full. */
  private full = false;
  private stopped = false;
  private shown = "";
  private readonly fullEveryMs: number;

  constructor(
    private readonly provider: ComputerProvider,
    private readonly options: WatchOptions,
  ) {
    this.fullEveryMs = options.fullEveryMs ?? FULL_READ_PACES * options.everyMs;
  }

  /** The first read (every computer read back), then one every everyMs after the last ended. */
  async start(): Promise<void> {
    await this.refresh();
  }

  /**
   * Reads now, after the read in flight (once, however many ask meanwhile); full (a person acted):
   * every computer read back, else only those whose listing changed or whose read-back is old.
   */
  refresh(full = true): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.full ||= full;
    if (this.reading) {
      this.again = true;
      // The read asked for is the one after this.
      return this.reading.then(() => this.reading);
    }
    clearTimeout(this.timer);
    this.reading = this.once().finally(() => {
      this.reading = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        void this.refresh(false);
      } else this.timer = setTimeout(() => void this.refresh(false), this.options.everyMs);
    });
    return this.reading;
  }

  private async once(): Promise<void> {
    const full = this.full;
    this.full = false;
    const { signal } = this.options;
    const failed = (error: unknown) => ({ ok: false as const, error: { code: "failed", message: String(error) } });
    const found = await listInfos(this.provider, this.options.labels, { signal }).catch(failed);
    if (this.stopped) return;
    if (!found.ok) {
      const at = new Date().toISOString();
      this.publish({ ...this.state, at, error: `the computers at ${this.provider.id} could not be listed (${found.error.code}): ${found.error.message}` });
      return;
    }
    const now = new Date();
    const due = found.value.filter((info) => {
      const was = this.listings.get(info.ref.name);
      if (full || !was || !was.readBack || listed(was.info) !== listed(info)) return true;
      return now.getTime() - (this.readAt.get(info.ref.name) ?? 0) >= this.fullEveryMs;
    });
    const read = await readEach(this.provider, due, { signal, now }).catch(() => undefined);
    if (this.stopped) return;
    if (!read) return this.publish({ ...this.state, at: new Date().toISOString(), error: `the computers at ${this.provider.id} could not be read back` });
    for (const info of due) this.readAt.set(info.ref.name, now.getTime());
    const fresh = new Map(read.map((l) => [l.info.ref.name, l]));
    const dueNames = new Set(due.map((info) => info.ref.name));
    // One read back now, or the last read-back with the list's word now; one gone meanwhile left out.
    const listings = found.value.flatMap((info) => {
      const name = info.ref.name;
      const listing = dueNames.has(name) ? fresh.get(name) : relisted(this.provider, this.listings.get(name)!, info, now);
      return listing ? [listing] : [];
    });
    const secretLabels = this.options.secretLabels ?? (() => new Set<string>());
    const tiles = listings.map((listing) => tileOf(this.provider, listing, secretLabels(listing.info.ref.name)));
    this.listings = new Map(listings.map((l) => [l.info.ref.name, l]));
    this.tiles = new Map(tiles.map((t) => [t.name, t]));
    for (const name of this.readAt.keys()) if (!this.listings.has(name)) this.readAt.delete(name);
    this.publish({ groups: groupTiles(tiles, this.options.grouping ?? BY_RUN), at: new Date().toISOString(), error: null });
  }

  /** Keeps the state; tells the listeners when what a page shows changed (not the time alone). */
  private publish(state: FleetState): void {
    this.state = state;
    const shown = JSON.stringify([state.groups, state.error]);
    if (shown === this.shown) return;
    this.shown = shown;
    for (const listener of this.listeners) listener(state);
  }

  current(): FleetState {
    return this.state;
  }

  /** The computer's listing and tile as the last read gave them. */
  find(name: string): { listing: Listing; tile: Tile } | undefined {
    const listing = this.listings.get(name);
    const tile = this.tiles.get(name);
    return listing && tile ? { listing, tile } : undefined;
  }

  /** The computer's screen, when the last read gave it running with one: its ref as read back (its spec says the kind, which a provider's live view goes by). */
  screenOf(name: string): ScreenOf | undefined {
    const found = this.find(name);
    const kind = found?.tile.screen ? screenKindOf(found.tile.kind) : undefined;
    return found && kind ? { ref: found.listing.ref ?? found.listing.info.ref, kind } : undefined;
  }

  /** Told each change; the function returned stops it. */
  on(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** No read after this one; the one in flight ends with the signal. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.listeners.clear();
    await this.reading?.catch(() => undefined);
  }
}
