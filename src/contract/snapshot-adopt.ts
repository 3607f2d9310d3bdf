// A snapshot's take for an owner, at every vendor: what an interrupted take of the same
// declaration left (the plugin killed after the vendor made the snapshot, before the stack
// recorded it) is adopted, the newest, and every other of that declaration removed, so a take
// cut off half-way leaves nothing the stack does not know. Each vendor finds its own (by its labels
// or by the names it gives) and removes by its own call.
import { ok, type Result } from "../daemon/result.js";

/** A snapshot an interrupted take may have left, with when it was taken (ms). */
export interface Left<T> {
  snapshot: T;
  takenAt: number;
}

/** A removal's answer: inUse when the vendor keeps it because a computer runs from it (then it is known, and stays). */
export type Removed = Result<undefined> & { inUse?: boolean };

/** The newest of what was left, to adopt (undefined: none), once every other is removed. */
export async function adoptLeft<T>(left: readonly Left<T>[], remove: (snapshot: T) => Promise<Removed>): Promise<Result<T | undefined>> {
  const [newest, ...older] = [...left].sort((a, b) => b.takenAt - a.takenAt);
  for (const other of older) {
    const removed = await remove(other.snapshot);
    if (!removed.ok && !removed.inUse) return removed;
  }
  return ok(newest?.snapshot);
}
