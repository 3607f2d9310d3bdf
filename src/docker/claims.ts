// A warm pool's computers on Docker: made ahead with the pool's label, renamed to pool-<hex> when
// ready, and claimed by a rename back to computer-<hex>. The rename is the compare-and-swap:
// Docker renames a name that exists once, so of two claims of one ready computer the second finds
// no such name and takes another. A container's labels are fixed at create, so the run labels a
// claim gives are kept in a claim record beside it (a volume named for the container, carrying
// them as its labels), and the provider's list reads the records in: releaseOlder and the sweep
// see a claimed computer as one of its run's.
import type { CallOptions } from "../daemon/client.js";
import { POOL_LABEL } from "../contract/labels.js";
import type { ComputerRef, Connection, PoolHooks } from "../contract/provider.js";
import { ok, type Result } from "../daemon/result.js";
import { claimInOrder } from "../contract/claim-order.js";
import type { DockerEngine } from "./api.js";
import { COMPUTER_LABEL, isReadyName, kindOfLabels, READY_PREFIX } from "./constants.js";
import { commandServesStdio } from "./create-request.js";
import { failure, listByLabels } from "./containers.js";
import { type Inspected, labelsOf } from "./readback.js";

/** A claim record's label: the id of the container it is the claim of. */
export const CLAIM_LABEL = "agentrun.computer.claim";
const CLAIM_PREFIX = "agentrun-claim-";
const CALL_MS = 30_000;

const recordName = (containerId: string) => `${CLAIM_PREFIX}${containerId}`;
/** A ready computer's name from its computer name: computer-<hex> → pool-<hex>; and back. */
export const readyName = (name: string) => name.replace(/^computer-/, READY_PREFIX);
export const claimedName = (name: string) => name.replace(new RegExp(`^${READY_PREFIX}`), "computer-");

interface Volume {
  Name: string;
  Labels?: Record<string, string> | null;
}

/** Every claim record: the container id each is for, and the labels it gives. */
export async function claimRecords(engine: DockerEngine, options: CallOptions = {}): Promise<Result<Map<string, Record<string, string>>>> {
  const filters = JSON.stringify({ label: [CLAIM_LABEL] });
  const listed = await engine.call<{ Volumes?: Volume[] | null }>("GET", "/volumes", { query: { filters }, signal: options.signal, timeoutMs: CALL_MS });
  if (!listed.ok) return failure(engine, "listing the claim records", listed);
  const records = new Map<string, Record<string, string>>();
  for (const v of listed.value?.Volumes ?? []) {
    const { [CLAIM_LABEL]: id, ...labels } = v.Labels ?? {};
    if (id && v.Name === recordName(id)) records.set(id, labels);
  }
  return ok(records);
}

/**
 * What listByLabels found, with each claimed computer's run labels read in and held to the
 * filter again; a claimed computer that matches the filter only through its record is listed
 * too (found by its id).
 */
export async function withClaims(
  engine: DockerEngine,
  labels: Record<string, string>,
  listed: Inspected[],
  options: CallOptions = {},
): Promise<Result<Inspected[]>> {
  const records = await claimRecords(engine, options);
  if (!records.ok) return records;
  if (records.value.size === 0) return ok(listed);
  const seen = new Set(listed.map((c) => c.Id));
  // A computer its own labels left out can match only through its record: a record that gives one
  // of the filter's labels and contradicts none. Other runs' records cost no second list.
  const wanted = Object.entries(labels);
  const couldMatch = (record: Record<string, string>) =>
    wanted.some(([k, v]) => record[k] === v) && wanted.every(([k, v]) => record[k] === undefined || record[k] === v);
  const more = [...records.value].filter(([id, record]) => !seen.has(id) && couldMatch(record)).map(([id]) => id);
  let found = listed;
  if (more.length > 0) {
    const all = await listByLabels(engine, {}, options);
    if (!all.ok) return all;
    const ids = new Set(more);
    found = [...listed, ...all.value.filter((c) => ids.has(c.Id))];
  }
  const read = found.map((c) => {
    const record = records.value.get(c.Id);
    return record ? { ...c, Config: { ...c.Config, Labels: { ...labelsOf(c), ...record } } } : c;
  });
  return ok(read.filter((c) => Object.entries(labels).every(([k, v]) => labelsOf(c)[k] === v)));
}

/** The claim record of a container: made with the labels a claim gives it. */
export async function recordClaim(
  engine: DockerEngine,
  containerId: string,
  labels: Record<string, string>,
  options: CallOptions = {},
): Promise<Result<undefined>> {
  const made = await engine.call("POST", "/volumes/create", {
    body: { Name: recordName(containerId), Labels: { ...labels, [CLAIM_LABEL]: containerId } },
    signal: options.signal,
    timeoutMs: CALL_MS,
  });
  return made.ok ? ok() : failure(engine, `recording the claim of ${containerId}`, made);
}

/** A container's claim record removed; none there is fine. Runs whatever the caller did, as a removal does. */
export async function removeClaim(engine: DockerEngine, containerId: string): Promise<Result<undefined>> {
  const removed = await engine.call("DELETE", `/volumes/${encodeURIComponent(recordName(containerId))}`, { query: { force: true }, timeoutMs: CALL_MS });
  return removed.ok || removed.status === 404 ? ok() : failure(engine, `removing the claim record of ${containerId}`, removed);
}

/** A computer just made for a pool, renamed ready (pool-<hex>); claim takes only such names. */
export async function markReady(engine: DockerEngine, name: string, options: CallOptions = {}): Promise<Result<string>> {
  const to = readyName(name);
  const renamed = await engine.call("POST", `/containers/${encodeURIComponent(name)}/rename`, {
    query: { name: to },
    signal: options.signal,
    timeoutMs: CALL_MS,
  });
  return renamed.ok ? ok(to) : failure(engine, `renaming ${name} ready as ${to}`, renamed);
}

/** A pool's computer as its list reports it; stdio and kind are known where it was listed (a preferred one is not). */
export interface Member {
  id: string;
  name: string;
  /** Its init serves its first client over its own stdio (made with init --stdio). */
  stdio?: boolean;
  kind?: "linux" | "desktop" | "browser";
}

/** The pool's ready computers: running, with its label and a ready name, in one list call. */
export async function readyMembers(engine: DockerEngine, pool: string, options: CallOptions = {}): Promise<Result<Member[]>> {
  const filters = JSON.stringify({ label: [`${COMPUTER_LABEL}=1`, `${POOL_LABEL}=${pool}`], status: ["running"], name: [`^/${READY_PREFIX}`] });
  const listed = await engine.call<Array<{ Id: string; Names?: string[] | null; Command?: string; Labels?: Record<string, string> | null }>>(
    "GET",
    "/containers/json",
    { query: { filters }, signal: options.signal, timeoutMs: CALL_MS },
  );
  if (!listed.ok) return failure(engine, `listing pool ${pool}'s ready computers`, listed);
  return ok(
    (listed.value ?? [])
      .map((c) => ({
        id: c.Id,
        name: (c.Names?.[0] ?? "").replace(/^\//, ""),
        // A computer a provider from before init --stdio made has no stdin to take: it is connected through the bridge.
        stdio: commandServesStdio(c.Command),
        kind: kindOfLabels(c.Labels ?? undefined),
      }))
      .filter((c) => isReadyName(c.name)),
  );
}

/** Renames a ready computer to its computer name: ok when this call took it, undefined when another claim did. */
async function renameTaken(engine: DockerEngine, member: Member, options: CallOptions): Promise<Result<string | undefined>> {
  const to = claimedName(member.name);
  const renamed = await engine.call("POST", `/containers/${encodeURIComponent(member.name)}/rename`, {
    query: { name: to },
    signal: options.signal,
    timeoutMs: CALL_MS,
  });
  // Another claim took it first. 404: its ready name is gone; 409: its computer name is taken;
  // 400 "same name": the engine found it by its ready name just before the other rename ended.
  if (renamed.status === 404 || renamed.status === 409 || (renamed.status === 400 && /same name/i.test(renamed.message))) return ok(undefined);
  return renamed.ok ? ok(to) : failure(engine, `claiming ${member.name}`, renamed);
}

/**
 * Takes one of the pool's ready computers for a run: renamed back to its computer name (the
 * compare-and-swap: a rename of a name another claim took first finds nothing, and the next is
 * tried), then its claim record made with the run's labels; in the order every vendor's claim
 * takes (src/contract/claim-order.ts). not_found when none is ready.
 */
export async function take(
  engine: DockerEngine,
  pool: string,
  labels: Record<string, string>,
  options: CallOptions & { prefer?: Member[] } = {},
): Promise<Result<Member>> {
  return claimInOrder<Member, Member>(pool, {
    prefer: (options.prefer ?? []).filter((m) => isReadyName(m.name)).map((m) => ({ id: m.id, name: m.name })),
    ready: () => readyMembers(engine, pool, options),
    name: (member) => member.name,
    attempt: async (member) => {
      const taken = await renameTaken(engine, member, options);
      if (!taken.ok || taken.value === undefined) return taken as Result<undefined>;
      const recorded = await recordClaim(engine, member.id, labels, options);
      return recorded.ok ? ok({ ...member, name: taken.value }) : recorded;
    },
    signal: options.signal,
  });
}

/** The janitor's part: claim records whose container is gone (removed by hand, not released). */
export async function sweepClaims(engine: DockerEngine, options: CallOptions = {}): Promise<Result<string[]>> {
  const records = await claimRecords(engine, options);
  if (!records.ok) return records;
  const removed: string[] = [];
  for (const id of records.value.keys()) {
    const there = await engine.call("GET", `/containers/${encodeURIComponent(id)}/json`, { signal: options.signal, timeoutMs: CALL_MS });
    if (there.status !== 404) continue;
    const gone = await removeClaim(engine, id);
    if (!gone.ok) return gone;
    removed.push(recordName(id));
  }
  return ok(removed);
}

/** Connects to a computer of a kind over its own stdio (openConnection's "stdio"). */
export type StdioConnect = (member: { id: string; name: string }, kind: "linux" | "desktop" | "browser", options: CallOptions) => Promise<Result<Connection>>;

/** The provider's pool hooks over these calls; a claim of a computer whose init serves its stdio connects through it. */
export function dockerPool(engine: DockerEngine, provider: string, stdio: StdioConnect): PoolHooks {
  const ref = (c: { id: string; name: string }): ComputerRef => ({ id: c.id, name: c.name, provider });
  return {
    ready: async (made, options) => {
      const renamed = await markReady(engine, made.name, options);
      return renamed.ok ? ok({ ...made, name: renamed.value }) : renamed;
    },
    members: async (pool, options) => {
      const ready = await readyMembers(engine, pool, options);
      return ready.ok ? ok(ready.value.map(ref)) : ready;
    },
    take: async (pool, labels, options) => {
      const taken = await take(engine, pool, labels, options);
      if (!taken.ok) return taken;
      const { kind, stdio: serves } = taken.value;
      return ok({
        ref: ref(taken.value),
        ...(serves && kind ? { connect: (o: CallOptions = {}) => stdio(taken.value, kind, o) } : {}),
      });
    },
  };
}
