// The Fleet's drift summary: its children's computers as found at the start of an up (or preview),
// before the engine heals them, so the stack's output says which were drifted or gone. Construct
// gets no prior state, so the children are found by their owner label (their URN's, as each
// Computer step writes it) in one list, and each found one is read back with the drift check the
// Computer's refresh uses. Read-only: a preview computes it too.
import { OWNER_LABEL, ownerLabel } from "../../src/contract/labels.js";
import type { ComputerProvider, ComputerState } from "../../src/contract/provider.js";
import type { RunState } from "../../src/contract/state.js";
import { orThrow } from "../../src/daemon/result.js";
import { resourceOwner, type Context } from "../resource.js";

const READ_MS = 30_000;
const AT_ONCE = 8;

/** A child as found: its state and drift check's mismatches, gone (no computer), or a read that failed in words. */
export type Found = { state: ComputerState; drift: readonly string[] } | "missing" | { failed: string };

export interface FleetDrift {
  /** How many children an up changes: drifted or stopped (replaced), or paused or running against the template's state (paused or resumed in place). */
  count: number;
  computers: string[];
  /** Children removed by hand: a refresh drops them, and the up makes them again. */
  gone: string[];
  /** Reads that failed, in words; absent when every read answered. */
  note?: string;
}

/**
 * The summary from what was found of children 0..size-1, held to what a Computer's read and diff
 * say of each: a stopped or drifted child is counted, and one paused or running against the
 * template's declared state (undefined while it is unknown); a missing one below the highest found
 * is gone (removed by hand); missing ones past it are new in this up (a first up, a grown size).
 */
export function summarize(name: string, size: number, found: ReadonlyMap<number, Found>, declared?: RunState): FleetDrift {
  let highest = -1;
  for (const [n, f] of found) if (f !== "missing" && n > highest) highest = n;
  const computers: string[] = [];
  const gone: string[] = [];
  const failed: string[] = [];
  for (let n = 0; n < size; n++) {
    const f = found.get(n) ?? "missing";
    if (f === "missing") {
      if (n < highest) gone.push(`${name}-${n}`);
    } else if ("failed" in f) failed.push(`${name}-${n}: ${f.failed}`);
    else if (f.state === "stopped" || f.drift.length > 0 || (declared !== undefined && f.state !== declared)) computers.push(`${name}-${n}`);
  }
  const summary = { count: computers.length, computers, gone };
  return failed.length ? { ...summary, note: `not read back: ${failed.join("; ")}` } : summary;
}

/** A child's URN from its fleet's: the child's type is the parent's type chain and its own. */
export function childUrn(fleetUrn: string, child: string): string {
  const parts = fleetUrn.split("::");
  return [...parts.slice(0, 2), `${parts[2]}$agentrun:index:Computer`, child].join("::");
}

/** Finds and reads back each child of the fleet; a failure is words in the summary, never a throw. */
export async function driftAtStart(
  ctx: Context,
  provider: ComputerProvider | string,
  fleetUrn: string,
  name: string,
  size: number,
  declared: RunState | undefined,
): Promise<FleetDrift> {
  const signal = AbortSignal.any([ctx.signal, AbortSignal.timeout(READ_MS)]);
  try {
    if (typeof provider === "string") throw new Error(provider);
    const owners = new Map<string, number>();
    for (let n = 0; n < size; n++) owners.set(ownerLabel(resourceOwner({ ...ctx, urn: childUrn(fleetUrn, `${name}-${n}`) })!)[OWNER_LABEL]!, n);
    const listed = orThrow(await provider.list(undefined, { signal }));
    const ids = new Map<number, string>();
    for (const c of listed) {
      const n = owners.get(c.labels[OWNER_LABEL] ?? "");
      if (n !== undefined) ids.set(n, c.ref.id);
    }
    const found = new Map<number, Found>();
    const queue = [...ids];
    const readOne = async ([n, id]: [number, string]) => {
      if (!provider.read) return found.set(n, { failed: `the ${provider.id} provider cannot read a computer back` });
      const r = await provider.read({ id }, { signal });
      found.set(n, r.ok ? { state: r.value.state, drift: r.value.drift } : r.error.code === "not_found" ? "missing" : { failed: r.error.message });
    };
    await Promise.all(
      Array.from({ length: Math.min(AT_ONCE, queue.length) }, async () => {
        for (let next = queue.shift(); next; next = queue.shift()) await readOne(next);
      }),
    );
    return summarize(name, size, found, declared);
  } catch (e) {
    return { count: 0, computers: [], gone: [], note: `the children could not be read back: ${e instanceof Error ? e.message : String(e)}` };
  }
}
