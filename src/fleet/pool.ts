// Warm pools: computers made ahead of the runs that will use them, and claim, which takes one for
// a run atomically and hands back a connected client. The atomic take is the vendor's (Docker: a
// rename, see docker/claims.ts), through the provider's pool hooks; a claimed computer leaves the
// pool and carries its run's labels, so releaseOlder and the sweep treat it as the run's own.
// A fill for an owner (the WarmPool resource) makes each computer for the owner, the pool and a
// slot: a provider that keeps owners (Docker) then adopts, one per slot, what a fill cut off
// left, and never more than the pool's size.
import type { CallOptions, ComputerClient } from "../daemon/client.js";
import { epochProblem, OWNER_LABEL, ownerLabel, RUN_LABEL, runLabels, runProblem } from "../contract/labels.js";
import type { Hello } from "../daemon/protocol.js";
import type { ComputerProvider, ComputerRef, ComputerSpec, Connection, CreateOptions, PoolHooks } from "../contract/provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { POOL_LABEL } from "../contract/labels.js";

export { POOL_LABEL };
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
  /** A browser's CDP, served on this machine's loopback by this connection, at its blank page and answering. */
  cdp?: Connection["cdp"];
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
  const watch = pool instanceof PoolWatch ? pool : undefined;
  const taken = await hooks.value.take(pool.id, runLabels(run, epoch), { signal, ...(watch ? { prefer: watch.held() } : {}) });
  if (!taken.ok) return taken;
  const { ref } = taken.value;
  // A bridge this process holds already: the claim is then a rename and a record, with no connect.
  const held = await watch?.handOver(ref.id);
  if (watch) void watch.look();
  if (held) return ok(claimedOf(ref, held));
  // Else the way only the claim may take, where the vendor has one (Docker: the computer's own
  // stdio); when it fails (a stdin someone else attached to first), the way any client connects.
  const own = taken.value.connect;
  let connected = own ? await own({ signal }) : await pool.provider.connect(ref, { signal });
  if (!connected.ok && own && !signal?.aborted) connected = await pool.provider.connect(ref, { signal });
  if (!connected.ok) {
    // Taken but not reachable: it is the run's now, so it is released rather than left.
    await pool.provider.release(ref, "delete");
    return fail(connected.error.code, `claimed ${ref.name} from pool ${pool.id}, but ${connected.error.message}; it was released`);
  }
  return ok(claimedOf(ref, connected.value));
}

/** A claimed computer with its connection: the daemon's client, and a browser's CDP. */
function claimedOf(ref: ComputerRef, connection: Connection): Claimed {
  return { ref, client: connection.client, hello: connection.hello, ...(connection.cdp ? { cdp: connection.cdp } : {}), close: connection.close };
}

/** The pool's ready computers now. */
export async function poolReady(pool: Pool, options: CallOptions = {}): Promise<Result<ComputerRef[]>> {
  const hooks = hooksOf(pool.provider);
  if (!hooks.ok) return hooks;
  return hooks.value.members(pool.id, options);
}

export interface FillOptions extends CallOptions {
  /**
   * Who the pool is filled for (the WarmPool resource). Each computer is made for the owner, the
   * pool and its slot (slotOwner), so a provider that keeps owners adopts what a fill cut off
   * left, one per slot, instead of making more.
   */
  owner?: string;
}

/** The owner a pool's computer in a slot is made for: the pool's owner, the pool, and the slot. */
export function slotOwner(owner: string, pool: string, slot: number): string {
  return `${owner}\0${pool}\0slot ${slot}`;
}

/**
 * The `count` lowest slots no ready computer holds (a claimed one has left its slot). A ready
 * computer's slot is read from its owner label, through the provider's list.
 */
async function freeSlots(pool: Pool, owner: string, ready: ComputerRef[], count: number, options: CallOptions): Promise<Result<number[]>> {
  const listed = await pool.provider.list({ [POOL_LABEL]: pool.id }, options);
  if (!listed.ok) return listed;
  const readyIds = new Set(ready.map((r) => r.id));
  const held = new Set(listed.value.filter((c) => readyIds.has(c.ref.id)).map((c) => c.labels[OWNER_LABEL]));
  const free: number[] = [];
  for (let slot = 0; free.length < count; slot += 1) {
    if (!held.has(ownerLabel(slotOwner(owner, pool.id, slot))[OWNER_LABEL])) free.push(slot);
  }
  return ok(free);
}

/**
 * Makes ready computers until the pool has size (each made from spec with the pool's label, then
 * made ready), a few at once; for an owner, each in a free slot. A computer made but not made
 * ready is released. Returns the names made. One fill at a time per pool: fills at once would
 * each make what is missing.
 */
export async function fillPool(pool: Pool, spec: ComputerSpec, size: number, options: FillOptions = {}): Promise<Result<string[]>> {
  const hooks = hooksOf(pool.provider);
  if (!hooks.ok) return hooks;
  const { owner, ...call } = options;
  const ready = await hooks.value.members(pool.id, call);
  if (!ready.ok) return ready;
  const missing = Math.max(0, size - ready.value.length);
  const slots = owner === undefined ? ok(undefined) : await freeSlots(pool, owner, ready.value, missing, call);
  if (!slots.ok) return slots;
  const made: string[] = [];
  const failed: string[] = [];
  const one = async (n: number) => {
    const slot = slots.value?.[n];
    const createOptions: CreateOptions = slot === undefined ? call : { ...call, owner: slotOwner(owner!, pool.id, slot) };
    const created = await pool.provider.create({ ...spec, labels: { ...spec.labels, [POOL_LABEL]: pool.id } }, createOptions);
    if (!created.ok) return void failed.push(created.error.message);
    const readied = await hooks.value.ready(created.value, call);
    if (!readied.ok) {
      await pool.provider.release(created.value, "delete");
      return void failed.push(readied.error.message);
    }
    made.push(readied.value.name);
  };
  for (let i = 0; i < missing; i += FILL_AT_ONCE) {
    await Promise.all(Array.from({ length: Math.min(FILL_AT_ONCE, missing - i) }, (_, k) => one(i + k)));
    if (failed.length) break;
  }
  if (failed.length)
    return fail("failed", `pool ${pool.id} was filled with ${made.length} of the ${missing} missing (${made.join(", ") || "none"}): ${failed[0]}`);
  return ok(made);
}

/** Releases these computers of the pool one by one, stopping at the first that fails, in words naming those released. */
async function releaseEach(pool: Pool, refs: ComputerRef[], options: CallOptions): Promise<Result<string[]>> {
  const released: string[] = [];
  for (const ref of refs) {
    const gone = await pool.provider.release(ref, "delete", options);
    if (!gone.ok) return fail(gone.error.code, `pool ${pool.id}: ${gone.error.message}; released ${released.join(", ") || "none"}`);
    released.push(ref.name);
  }
  return ok(released);
}

/** Releases ready computers past `keep`: a smaller pool. Claimed ones are their runs'. */
export async function drainPool(pool: Pool, keep: number, options: CallOptions = {}): Promise<Result<string[]>> {
  const ready = await poolReady(pool, options);
  if (!ready.ok) return ready;
  return releaseEach(pool, ready.value.slice(keep), options);
}

/**
 * Releases every computer of the pool no run has claimed (a claimed one carries its run's label):
 * the ready ones, and any a fill cut off left half made. A pool deleted, or a create that failed.
 */
export async function clearPool(pool: Pool, options: CallOptions = {}): Promise<Result<string[]>> {
  const listed = await pool.provider.list({ [POOL_LABEL]: pool.id }, options);
  if (!listed.ok) return listed;
  return releaseEach(
    pool,
    listed.value.filter((c) => c.labels[RUN_LABEL] === undefined).map((c) => c.ref),
    options,
  );
}

/**
 * A pool held warm by one process (a service that claims): bridges open to up to `connections`
 * of its ready computers, looked at again every `everyMs` and after each claim. A claim through it
 * takes a computer it holds a bridge to first, so the claim is a rename and a record, with no
 * connect. A computer another process claims is no longer ready, and its bridge here is closed at
 * the next look: hold one per service, and close it when done.
 */
export class PoolWatch implements Pool {
  readonly provider: ComputerProvider;
  readonly id: string;
  readonly #connections: number;
  readonly #bridges = new Map<string, { ref: ComputerRef; connection: Promise<Result<Connection>>; open?: Connection }>();
  readonly #timer: NodeJS.Timeout;
  #looking: Promise<void> | undefined;
  #closed = false;

  constructor(pool: Pool, options: { connections?: number; everyMs?: number } = {}) {
    this.provider = pool.provider;
    this.id = pool.id;
    this.#connections = options.connections ?? 4;
    this.#timer = setInterval(() => void this.look(), options.everyMs ?? 250);
    this.#timer.unref();
  }

  /** Opens bridges to ready computers not yet held, and closes those no longer ready. */
  look(): Promise<void> {
    this.#looking ??= this.#look().finally(() => (this.#looking = undefined));
    return this.#looking;
  }

  async #look(): Promise<void> {
    const ready = await poolReady(this);
    if (!ready.ok || this.#closed) return;
    const now = new Set(ready.value.map((r) => r.id));
    for (const [id, bridge] of this.#bridges) {
      if (now.has(id)) continue;
      this.#bridges.delete(id);
      void shut(bridge.connection);
    }
    const opening: Array<Promise<unknown>> = [];
    for (const ref of ready.value) {
      if (this.#bridges.size >= this.#connections) break;
      if (this.#bridges.has(ref.id)) continue;
      const bridge: { ref: ComputerRef; connection: Promise<Result<Connection>>; open?: Connection } = { ref, connection: this.provider.connect(ref) };
      this.#bridges.set(ref.id, bridge);
      opening.push(
        bridge.connection.then((c) => {
          if (c.ok) bridge.open = c.value;
          else if (this.#bridges.get(ref.id) === bridge) this.#bridges.delete(ref.id);
        }),
      );
    }
    // Done when the bridges it began are open, so a claim after a look finds them.
    await Promise.all(opening);
  }

  /** The ready computers it holds an open bridge to (one still opening is not offered). */
  held(): ComputerRef[] {
    return [...this.#bridges.values()].filter((b) => b.open).map((b) => b.ref);
  }

  /** The bridge to a computer this process has just claimed, handed over; undefined when none was held or it failed. */
  async handOver(id: string): Promise<Connection | undefined> {
    const bridge = this.#bridges.get(id);
    if (!bridge) return undefined;
    this.#bridges.delete(id);
    const connected = await bridge.connection;
    return connected.ok ? connected.value : undefined;
  }

  /** Stops looking and closes every bridge it holds (claimed computers' connections are their callers'). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#looking;
    const all = [...this.#bridges.values()];
    this.#bridges.clear();
    await Promise.all(all.map((b) => shut(b.connection)));
  }
}

async function shut(connection: Promise<Result<Connection>>): Promise<void> {
  const c = await connection;
  if (c.ok) await c.value.close().catch(() => {});
}
