// Warm pools: computers made ahead of the runs that will use them, and claim, which takes one for
// a run atomically and hands back a connected client. The atomic take is the vendor's (Docker: a
// rename, see docker/claims.ts), through the provider's pool hooks; a claimed computer leaves the
// pool and carries its run's labels, so releaseOlder and the sweep treat it as the run's own.
import type { CallOptions, ComputerClient } from "./client.js";
import { epochProblem, runLabels, runProblem } from "./labels.js";
import type { Hello } from "./protocol.js";
import type { ComputerProvider, ComputerRef, ComputerSpec, PoolHooks } from "./provider.js";
import { fail, ok, type Result } from "./result.js";

/** The label a pool's computers are made with: the pool's id. */
export const POOL_LABEL = "agentrun.pool";
/** A pool id: pool- and 8 to 32 hex digits (the WarmPool resource makes one). */
const POOL_ID = /^pool-[0-9a-f]{8,32}$/;
/** How many computers a fill makes at once. */
const FILL_AT_ONCE = 4;

export interface Pool {
  provider: ComputerProvider;
  /** The pool's id (a WarmPool's `poolId`). */
  id: string;
}

export interface Claimed {
  ref: ComputerRef;
  client: ComputerClient;
  hello: Hello;
  /** Closes the connection; the computer stays the run's until it is released. */
  close(): Promise<void>;
}

/** Why a pool id is refused, or undefined. */
export function poolProblem(id: unknown): string | undefined {
  return typeof id === "string" && POOL_ID.test(id) ? undefined : "a pool id is pool- and 8 to 32 hex digits (a WarmPool's poolId)";
}

function hooksOf(provider: ComputerProvider): Result<PoolHooks> {
  if (!provider.pool) return fail("unsupported", `the ${provider.id} provider has no warm pools: it gives no atomic claim; make computers with create`);
  return ok(provider.pool);
}

/**
 * Takes one ready computer of the pool for a run at an epoch: never the same one for two claims,
 * even at once. The computer leaves the pool, carries the run's labels (runLabels), and is handed
 * back with a connection to its daemon. not_found when the pool has none ready.
 */
export async function claim(pool: Pool, claimOf: { run: string; epoch: number } & CallOptions): Promise<Result<Claimed>> {
  const { run, epoch, signal } = claimOf;
  const problem = poolProblem(pool.id) ?? runProblem(run) ?? epochProblem(epoch);
  if (problem) return fail("invalid", `claim: ${problem}`, { field: poolProblem(pool.id) ? "pool" : runProblem(run) ? "run" : "epoch" });
  const hooks = hooksOf(pool.provider);
  if (!hooks.ok) return hooks;
  const taken = await hooks.value.take(pool.id, runLabels(run, epoch), { signal });
  if (!taken.ok) return taken;
  const connected = await pool.provider.connect(taken.value, { signal });
  if (!connected.ok) {
    // Taken but not reachable: it is the run's now, so it is released rather than left.
    await pool.provider.release(taken.value, "delete");
    return fail(connected.error.code, `claimed ${taken.value.name} from pool ${pool.id}, but ${connected.error.message}; it was released`);
  }
  return ok({ ref: taken.value, client: connected.value.client, hello: connected.value.hello, close: connected.value.close });
}

/** The pool's ready computers now. */
export async function poolReady(pool: Pool, options: CallOptions = {}): Promise<Result<ComputerRef[]>> {
  const hooks = hooksOf(pool.provider);
  if (!hooks.ok) return hooks;
  return hooks.value.members(pool.id, options);
}

/**
 * Makes ready computers until the pool has size (each made from spec with the pool's label, then
 * made ready), a few at once. A computer made but not made ready is released. Returns the names made.
 */
export async function fillPool(pool: Pool, spec: ComputerSpec, size: number, options: CallOptions = {}): Promise<Result<string[]>> {
  const hooks = hooksOf(pool.provider);
  if (!hooks.ok) return hooks;
  const ready = await hooks.value.members(pool.id, options);
  if (!ready.ok) return ready;
  const missing = Math.max(0, size - ready.value.length);
  const made: string[] = [];
  const failed: string[] = [];
  const one = async () => {
    const created = await pool.provider.create({ ...spec, labels: { ...spec.labels, [POOL_LABEL]: pool.id } }, options);
    if (!created.ok) return void failed.push(created.error.message);
    const readied = await hooks.value.ready(created.value, options);
    if (!readied.ok) {
      await pool.provider.release(created.value, "delete");
      return void failed.push(readied.error.message);
    }
    made.push(readied.value.name);
  };
  for (let i = 0; i < missing; i += FILL_AT_ONCE) {
    await Promise.all(Array.from({ length: Math.min(FILL_AT_ONCE, missing - i) }, one));
    if (failed.length) break;
  }
  if (failed.length) return fail("failed", `pool ${pool.id} was filled with ${made.length} of the ${missing} missing (${made.join(", ") || "none"}): ${failed[0]}`);
  return ok(made);
}

/** Releases ready computers past `keep` (all with 0): a smaller pool, or a pool deleted. Claimed ones are their runs'. */
export async function drainPool(pool: Pool, keep: number, options: CallOptions = {}): Promise<Result<string[]>> {
  const ready = await poolReady(pool, options);
  if (!ready.ok) return ready;
  const extra = ready.value.slice(keep);
  const released: string[] = [];
  for (const ref of extra) {
    const gone = await pool.provider.release(ref, "delete", options);
    if (!gone.ok) return fail(gone.error.code, `pool ${pool.id}: ${gone.error.message}; released ${released.join(", ") || "none"}`);
    released.push(ref.name);
  }
  return ok(released);
}
