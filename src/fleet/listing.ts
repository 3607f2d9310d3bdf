// A provider's computers with each one's drift read back, and whether it has outlived its
// deadline (the janitor's rule): what `agentrun ls` shows and the plugin's listComputers gives;
// and its two halves, the list alone and the read-back, for agentrun ui, which reads back only
// the computers whose listing changed.
import { boundedBy } from "../daemon/bound.js";
import { stoppedWords } from "../contract/lifetime.js";
import type { CallOptions } from "../daemon/client.js";
import { pastDeadline } from "./janitor.js";
import type { ComputerInfo, ComputerProvider, ComputerRef, ComputerState } from "../contract/provider.js";
import type { MachineKind } from "../daemon/protocol.js";
import type { Result } from "../daemon/result.js";
import { ok } from "../daemon/result.js";

/** Drift checks at once: each connects to a daemon, so a large fleet is read a few at a time. */
const READS_AT_ONCE = 4;
/** How long the list, and each computer's read-back, may take. */
const CALL_MS = 60_000;

export interface Listing {
  info: ComputerInfo;
  kind: MachineKind;
  state: ComputerState;
  /** Every mismatch in words; or, when it could not be read back, why. */
  drift: string[];
  /** False when the computer could not be read back, so its drift is unknown. */
  readBack: boolean;
  /** Its deadline has passed (or it has none that could be read): the janitor's sweep deletes it. */
  overdue: boolean;
  /** Its ref as read back (with the spec and hello read), when it was read back. */
  ref?: ComputerRef;
}

export interface ListingOptions extends CallOptions {
  /** The time the deadlines are held to (default now). */
  now?: Date;
}

/** Reads one listed computer back, bounded; one gone since the list is left out. */
async function readOne(provider: ComputerProvider, info: ComputerInfo, now: Date, signal: AbortSignal | undefined): Promise<Listing | undefined> {
  const base = { info, state: info.state, overdue: pastDeadline(info, now, provider.capabilities()) };
  const fallback = info.ref.spec?.kind ?? provider.capabilities().kind;
  if (!provider.read) return { ...base, kind: fallback, drift: [`${provider.id} cannot read a computer's drift`], readBack: false };
  const read = await provider.read({ id: info.ref.id }, { signal: boundedBy(CALL_MS, signal).signal });
  if (!read.ok && read.error.code === "not_found") return undefined;
  if (!read.ok) return { ...base, kind: fallback, drift: [`could not be read (${read.error.code}): ${read.error.message}`], readBack: false };
  // A stopped computer is drift, as a refresh shows it (`state`), said first.
  const drift = read.value.state === "stopped" ? [stoppedWords(info.deadline, now), ...read.value.drift] : read.value.drift;
  const kind = read.value.hello?.kind ?? read.value.ref.spec?.kind ?? fallback;
  return { ...base, state: read.value.state, kind, drift, readBack: true, ref: read.value.ref };
}

/** An earlier read-back of a computer kept with what the list says of it now (its deadline held to now). */
export function relisted(provider: ComputerProvider, earlier: Listing, info: ComputerInfo, now: Date): Listing {
  return { ...earlier, info, overdue: pastDeadline(info, now, provider.capabilities()) };
}

/** The provider's computers carrying every one of labels (all when none), as list() gives them: no daemon reached. */
export async function listInfos(provider: ComputerProvider, labels: Record<string, string> = {}, options: CallOptions = {}): Promise<Result<ComputerInfo[]>> {
  const found = await provider.list(Object.keys(labels).length > 0 ? labels : undefined, { signal: boundedBy(CALL_MS, options.signal).signal });
  if (!found.ok) return found;
  // Held to the labels again: a computer without them is never reported, whatever list gave.
  return ok(found.value.filter((info) => Object.entries(labels).every(([k, v]) => info.labels[k] === v)));
}

/** Each listed computer read back, a few at once, in list order; those gone meanwhile left out. */
export async function readEach(provider: ComputerProvider, infos: readonly ComputerInfo[], options: ListingOptions = {}): Promise<Listing[]> {
  const now = options.now ?? new Date();
  const out: Array<Listing | undefined> = new Array(infos.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < infos.length; i = next++) out[i] = await readOne(provider, infos[i]!, now, options.signal);
  };
  await Promise.all(Array.from({ length: Math.min(READS_AT_ONCE, infos.length) }, worker));
  return out.filter((l): l is Listing => l !== undefined);
}

/** The provider's computers carrying every one of labels (all when none), each read back, in list order. */
export async function listComputers(provider: ComputerProvider, labels: Record<string, string> = {}, options: ListingOptions = {}): Promise<Result<Listing[]>> {
  const now = options.now ?? new Date();
  const found = await listInfos(provider, labels, options);
  if (!found.ok) return found;
  return ok(await readEach(provider, found.value, { ...options, now }));
}
