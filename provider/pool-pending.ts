// A WarmPool's create under way: its pool id is chosen before any computer carries it, so it is
// kept (with the declaration it fills and the provider it fills at) as a record under
// ~/.cache/agentrun-computer/pools by the pool's owner (owner-file.ts) until the create ends. A
// create cut off (the plugin killed) leaves the record; the next create of the same resource
// fills the same pool again, so its computers adopt, one per slot, what the cut-off fill made.
import { dropRecord, readRecord, recordsOf, writeRecord } from "./owner-file.js";

export const PENDING = recordsOf("pools");

export interface PendingPool {
  poolId: string;
  /** The owner's template, hashed (labels.ts ownerLabels): another template is another pool. */
  declaration: string;
  /** The registry id of the provider the pool's computers are at. */
  provider: string;
}

const isPending = (value: unknown): value is PendingPool =>
  typeof value === "object" && value !== null && ["poolId", "declaration", "provider"].every((k) => typeof (value as Record<string, unknown>)[k] === "string");

/** The pool a create of this owner was filling when it was cut off, if any. */
export const readPending = (owner: string, dir = PENDING): Promise<PendingPool | undefined> => readRecord(owner, dir, isPending);

/** Written before the pool's first computer is made. */
export const writePending = (owner: string, pending: PendingPool, dir = PENDING): Promise<void> => writeRecord(owner, dir, pending);

/** Dropped when the create ends, filled or cleared. */
export const dropPending = (owner: string, dir = PENDING): Promise<void> => dropRecord(owner, dir);
