// The watch loop: the fleet read again with listComputers (the same read as refresh) at a pace,
// never two reads at once, each listener told when the tiles changed (or the read failed, or
// came back), so the page stays current with no read of its own.
import type { ComputerProvider } from "../../contract/provider.js";
import type { Listing } from "../../fleet/listing.js";
import type { Result } from "../../daemon/result.js";
import { type Group, groupTiles, type Tile, tileOf } from "./fleet.js";

export interface FleetState {
  groups: Group[];
  /** When the read that gave the tiles ended, an ISO time; null before the first. */
  at: string | null;
  /** Why the last read failed (the tiles are then the read's before), or null. */
  error: string | null;
}

export type Listener = (state: FleetState) => void;

export class FleetWatch {
  private state: FleetState = { groups: [], at: null, error: null };
  private listings = new Map<string, Listing>();
  private tiles = new Map<string, Tile>();
  private listeners = new Set<Listener>();
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private stopped = false;
  private shown = "";

  constructor(
    private readonly provider: ComputerProvider,
    private readonly read: (signal: AbortSignal) => Promise<Result<Listing[]>>,
    private readonly everyMs: number,
    private readonly signal: AbortSignal,
    /** The label keys whose values a computer's tile never shows (its stack declares them secret). */
    private readonly secretLabels: (name: string) => ReadonlySet<string> = () => new Set(),
  ) {}

  /** The first read, then one every everyMs after the last ended. */
  async start(): Promise<void> {
    await this.refresh();
  }

  /** Reads now (after the read in flight, once, however many ask meanwhile). */
  refresh(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    clearTimeout(this.timer);
    this.reading = this.once().finally(() => {
      this.reading = undefined;
      if (this.stopped) return;
      if (this.again) {
        this.again = false;
        void this.refresh();
      } else this.timer = setTimeout(() => void this.refresh(), this.everyMs);
    });
    return this.reading;
  }

  private async once(): Promise<void> {
    const found = await this.read(this.signal).catch((error: unknown) => ({ ok: false as const, error: { code: "failed", message: String(error) } }));
    if (this.stopped) return;
    const at = new Date().toISOString();
    if (!found.ok) {
      this.publish({ ...this.state, at, error: `the computers at ${this.provider.id} could not be listed (${found.error.code}): ${found.error.message}` });
      return;
    }
    const tiles = found.value.map((listing) => tileOf(this.provider, listing, this.secretLabels(listing.info.ref.name)));
    this.listings = new Map(found.value.map((l) => [l.info.ref.name, l]));
    this.tiles = new Map(tiles.map((t) => [t.name, t]));
    this.publish({ groups: groupTiles(tiles), at, error: null });
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
