// What a run made and what is still coming: every create and connect is tracked, and each
// release, close and wait at the end is bounded; what fails or runs out is named in cleanup.
import { asFailure } from "../daemon/client.js";
import type { ComputerProvider, ComputerRef, Connection } from "../contract/provider.js";
import type { Result } from "../daemon/result.js";
import type { Cleanup } from "./report.js";

/** Every computer of a run carries this label, with the run's id. */
export const CONFORMANCE_LABEL = "agentrun.conformance";
/** And this one, with the case that made it ("shared" for the shared computer). */
export const CASE_LABEL = "agentrun.conformance.case";

export const TIMED_OUT = Symbol("timed out");

/** The promise's value, or TIMED_OUT once ms pass; the promise runs on. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | typeof TIMED_OUT> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<typeof TIMED_OUT>((resolve) => (timer = setTimeout(() => resolve(TIMED_OUT), ms)));
  return Promise.race([promise, bound]).finally(() => clearTimeout(timer));
}

/** A provider call's result, or a failure once it throws. */
export async function settle<T>(call: () => Promise<Result<T>>): Promise<Result<T>> {
  try {
    return await call();
  } catch (error) {
    return asFailure(error);
  }
}

export interface Made {
  ref: ComputerRef;
  by: ComputerProvider;
  owner: string;
}

export interface MadeSnapshot {
  image: string;
  by: ComputerProvider;
  owner: string;
}

/** What the run made, what is still coming, and what cleanup found. */
export class Ledger {
  readonly cleanup: Cleanup = { left: [], errors: [], late: [] };
  readonly computerNotes: Array<{ computer: string; note: string }> = [];
  readonly pending = new Map<Promise<unknown>, string>();

  constructor(private readonly boundMs: number) {}

  track<T>(promise: Promise<T>, what: string): Promise<T> {
    this.pending.set(promise, what);
    void promise.then(
      () => this.pending.delete(promise),
      () => this.pending.delete(promise),
    );
    return promise;
  }

  notesOf(ref: ComputerRef): void {
    for (const note of ref.notes ?? []) this.computerNotes.push({ computer: ref.name, note });
  }

  async release(made: Made): Promise<void> {
    const released = await within(
      settle(() => made.by.release(made.ref, "delete", { signal: AbortSignal.timeout(this.boundMs) })),
      this.boundMs,
    );
    if (released === TIMED_OUT) this.cleanup.errors.push(`the release of ${made.ref.name} (${made.owner}) did not answer within ${this.boundMs / 1000} s`);
    else if (!released.ok)
      this.cleanup.errors.push(`the release of ${made.ref.name} (${made.owner}) failed (${released.error.code}): ${released.error.message}`);
  }

  /** Removes a snapshot, then reads it back: one still there is left behind. */
  async removeSnapshot(made: MadeSnapshot): Promise<void> {
    const hooks = made.by.snapshots!;
    const removed = await within(
      settle(() => hooks.remove(made.image, { signal: AbortSignal.timeout(this.boundMs) })),
      this.boundMs,
    );
    if (removed === TIMED_OUT)
      return void this.cleanup.errors.push(`the removal of the snapshot ${made.image} (${made.owner}) did not answer within ${this.boundMs / 1000} s`);
    if (!removed.ok)
      return void this.cleanup.errors.push(
        `the removal of the snapshot ${made.image} (${made.owner}) failed (${removed.error.code}): ${removed.error.message}`,
      );
    const read = await within(
      settle(() => hooks.read(made.image, { signal: AbortSignal.timeout(this.boundMs) })),
      this.boundMs,
    );
    if (read === TIMED_OUT) this.cleanup.errors.push(`the read-back of the removed snapshot ${made.image} did not answer within ${this.boundMs / 1000} s`);
    else if (read.ok) this.cleanup.left.push(`the snapshot ${made.image} (${made.owner}), still read back after its removal`);
    else if (read.error.code !== "not_found")
      this.cleanup.errors.push(`the read-back of the removed snapshot ${made.image} failed (${read.error.code}): ${read.error.message}`);
  }

  async close(connection: Connection, owner: string): Promise<void> {
    const closed = await within(
      connection.close().catch(() => {}),
      this.boundMs,
    );
    if (closed === TIMED_OUT) this.cleanup.errors.push(`a connection of ${owner} did not close within ${this.boundMs / 1000} s`);
  }
}
