// A warm pool's claim, in the order every vendor's take tries its ready computers: the caller's
// preferred ones first (with no list), then the pool's ready ones from a random start, so claims
// made at once try different computers first. Each try is the vendor's compare-and-swap (Docker's
// rename, Kubernetes' patch under a resourceVersion): undefined when another claim won it.
import { randomBytes } from "node:crypto";
import { fail, type Result } from "../daemon/result.js";

export interface ClaimOrder<M, R> {
  /** The ready computers the caller holds already, tried before the pool is listed. */
  prefer: readonly M[];
  /** The pool's ready computers now. */
  ready: () => Promise<Result<M[]>>;
  /** A computer's name: one tried is not tried again. */
  name: (member: M) => string;
  /** The compare-and-swap: what was taken, or undefined when another claim took it first. */
  attempt: (member: M) => Promise<Result<R | undefined>>;
  signal?: AbortSignal | undefined;
}

/** One ready computer of the pool taken, never the same one twice; not_found in words when none is ready. */
export async function claimInOrder<M, R>(pool: string, order: ClaimOrder<M, R>): Promise<Result<R>> {
  const tried = new Set<string>();
  const one = async (member: M): Promise<Result<R | undefined>> => {
    tried.add(order.name(member));
    return order.attempt(member);
  };
  for (const member of order.prefer) {
    const got = await one(member);
    if (!got.ok || got.value !== undefined) return got as Result<R>;
  }
  const ready = await order.ready();
  if (!ready.ok) return ready;
  const members = ready.value.filter((m) => !tried.has(order.name(m)));
  const start = members.length ? randomBytes(2).readUInt16BE(0) % members.length : 0;
  for (let i = 0; i < members.length; i += 1) {
    const got = await one(members[(start + i) % members.length]!);
    if (!got.ok || got.value !== undefined) return got as Result<R>;
  }
  if (order.signal?.aborted) return fail("aborted", `the claim on pool ${pool} was aborted`);
  return fail(
    "not_found",
    `pool ${pool} has no ready computer${tried.size ? ` (${tried.size} were claimed by others at the same moment)` : ""}: the next pulumi up refills it, or raise its size`,
  );
}
