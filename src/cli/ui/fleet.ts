// The fleet view's tiles, from listComputers' listings: each computer in ls's words (its drift in
// a word and in words), marked when it drifted or ended, grouped by its run label or (with a
// stack) by the stack's resource that made it.
import { EPOCH_LABEL, POOL_LABEL, RUN_LABEL } from "../../contract/labels.js";
import type { ComputerProvider } from "../../contract/provider.js";
import type { Listing } from "../../fleet/listing.js";
import { type Listed, listedOf } from "../ls.js";
import type { StackState } from "../stack-config.js";
import { screenKindOf } from "./screens.js";

/** The agentrun labels a person reads on a tile; the rest of agentrun.* (the provider's own, the owner's hashes, an image's) are the machinery's. */
const SHOWN_OWN_LABELS = new Set([RUN_LABEL, EPOCH_LABEL, POOL_LABEL]);
const HIDDEN_LABEL = (key: string) => key.startsWith("agentrun.") && !SHOWN_OWN_LABELS.has(key);

/** What a tile shows for a label's value its stack declares secret. */
export const SECRET_WORD = "[secret]";

/** A computer as its tile shows it: ls's row but its whole labels (the machinery's and any secret's). */
export interface Tile extends Omit<Listed, "labels"> {
  /** The labels a person reads: the run's, the epoch's, the pool's and the caller's own. */
  shownLabels: Record<string, string>;
  /** Its drift is not "ok": stopped, mismatches, or unknown (it could not be read back). */
  drifted: boolean;
  /** It is not running, or its deadline has passed (the janitor's sweep releases it). */
  ended: boolean;
  /** A running desktop, browser or phone: it has a screen to show. */
  screen: boolean;
}

export interface Group {
  /** What the page heads the group with: the run, the stack's resource, or the rest's title. */
  title: string;
  tiles: Tile[];
}

/** How the tiles are grouped: each tile's group, or null for the rest (put last, titled rest). */
export interface Grouping {
  of(tile: Tile): string | null;
  rest: string;
}

/** By the run label: the computers that carry none last, as "no run". */
export const BY_RUN: Grouping = { of: (tile) => tile.run, rest: "no run" };

/** By the stack's resource that made each computer (a pool's claimed member by its pool label) as its state last read says; the rest last. */
export function byResource(stack: string, state: () => StackState | undefined): Grouping {
  return {
    of: (tile) => state()?.computers.get(tile.name)?.madeBy ?? state()?.pools.get(tile.shownLabels[POOL_LABEL] ?? "") ?? null,
    rest: `not in the stack ${stack}`,
  };
}

/** The label keys a stack's Computer declares secret (its inputs as the state holds them, each secret as SECRET_WORD). */
export function secretLabelsOf(inputs: Record<string, unknown> | undefined): Set<string> {
  const labels = inputs?.labels;
  if (typeof labels !== "object" || labels === null) return new Set();
  return new Set(Object.entries(labels).flatMap(([k, v]) => (v === SECRET_WORD ? [k] : [])));
}

/** A listing as its tile; the value of each label in secretLabels (a stack's secret) shown as SECRET_WORD, the run's and epoch's too. */
export function tileOf(provider: ComputerProvider, listing: Listing, secretLabels: ReadonlySet<string> = new Set()): Tile {
  const { labels, ...listed } = listedOf(provider, listing);
  const shown = (key: string, value: string) => (secretLabels.has(key) ? SECRET_WORD : value);
  return {
    ...listed,
    run: listed.run === null ? null : shown(RUN_LABEL, listed.run),
    epoch: listed.epoch === null ? null : shown(EPOCH_LABEL, listed.epoch),
    shownLabels: Object.fromEntries(Object.entries(labels).flatMap(([k, v]) => (HIDDEN_LABEL(k) ? [] : [[k, shown(k, v)]]))),
    drifted: listed.drift !== "ok",
    ended: listed.state !== "running" || listing.overdue,
    screen: screenKindOf(listed.kind) !== undefined && listed.state === "running",
  };
}

/** The CSS classes a tile stands out by: drifted, ended. */
export function marks(tile: Pick<Tile, "drifted" | "ended">): string[] {
  return [...(tile.drifted ? ["drifted"] : []), ...(tile.ended ? ["ended"] : [])];
}

/** The tiles by their groups, in order and the rest last; in each, the tiles by name. */
export function groupTiles(tiles: readonly Tile[], grouping: Grouping = BY_RUN): Group[] {
  const byGroup = new Map<string | null, Tile[]>();
  for (const tile of tiles) {
    const group = grouping.of(tile);
    byGroup.set(group, [...(byGroup.get(group) ?? []), tile]);
  }
  const groups = [...byGroup.keys()].sort((a, b) => (a === null ? 1 : b === null ? -1 : a.localeCompare(b)));
  return groups.map((group) => ({
    title: group ?? grouping.rest,
    tiles: [...byGroup.get(group)!].sort((a, b) => a.name.localeCompare(b.name)),
  }));
}
