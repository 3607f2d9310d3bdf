// An idempotent create on Docker. A computer made for an owner (the Pulumi plugin's resource)
// carries the owner and declaration labels from its container's create request on, before
// anything can fail (labels.ts claimLabels). A create with an owner first looks for computers
// of its declaration left by an interrupted create: the first that is whole (running, its daemon
// answering, no drift) and as declared is adopted, and every other is removed, egress parts
// included. A delete then also removes the owner's computers made before the one it deletes:
// those an interrupted create left that the next create, declared otherwise, did not adopt.
// A pool's computer a run has claimed is the run's: never adopted, never removed here.
import type { CallOptions } from "../client.js";
import { claimLabels, DECLARATION_LABEL, OWNER_LABEL } from "../labels.js";
import type { ComputerRef, ComputerSpec, ReadBack } from "../provider.js";
import { fail, ok, type Result } from "../result.js";
import { userText } from "../user.js";
import type { DockerEngine } from "./api.js";
import { COMPUTER_LABEL } from "./constants.js";
import { POOL_LABEL } from "../pool.js";
import { claimRecords } from "./claims.js";
import { failure, remove } from "./containers.js";
import { sameNetwork } from "./drift.js";
import { removeEgress } from "./egress.js";
import { EGRESS_LABEL } from "./egress-request.js";
import { planOf } from "./plan.js";
import { type Inspected, labelsOf, nameOf } from "./readback.js";

const CALL_MS = 30_000;

/** The part of a DockerProvider adoption uses. */
export interface Adopter {
  readonly engine: DockerEngine;
  read(by: { id: string }, options?: CallOptions): Promise<Result<ReadBack>>;
}

/** What create fills a spec's plan in with beside the spec: the provider's user, and the test network's range (its seam). */
export type PlanDefaults = Pick<Parameters<typeof planOf>[1], "userDefault" | "testNetwork">;

/**
 * Why a computer read back whole is not the spec declared, or undefined when it is: every
 * field the spec names (its defaults filled in as create fills them), its caller's labels
 * exactly, and a deadline no later than a create now would give it.
 */
export function notAsDeclared(spec: ComputerSpec, read: ReadBack, defaults: PlanDefaults, now = Date.now()): string | undefined {
  const got = read.ref.spec;
  if (!got) return "its spec could not be read back";
  const plan = planOf(spec, { name: read.ref.name, deadline: "", daemon: "", ...defaults });
  const want: Array<[string, unknown, unknown]> = [
    ["image", spec.image, got.image],
    ["user", userText(plan), got.user],
    ["cpus", plan.cpus, got.cpus],
    ["memoryMb", plan.memoryMb, got.memoryMb],
    ["pids", plan.pids, got.pids],
    ["workdir", plan.workdir, got.workdir],
    ["mount", plan.mount?.path, got.mount && "path" in got.mount ? got.mount.path : undefined],
  ];
  for (const [field, a, b] of want) if (a !== b) return `its ${field} reads ${JSON.stringify(b)}, not ${JSON.stringify(a)}`;
  if (!sameNetwork(got.network, spec.network)) return "its network is not the one declared";
  // The image's own labels are there too; the declaration label already holds every declared one.
  const missing = Object.entries(spec.labels ?? {}).find(([k, v]) => read.labels[k] !== v);
  if (missing) return `its label ${missing[0]} is not the one declared`;
  const deadline = Date.parse(got.deadline ?? "");
  if (!(deadline > now)) return "its deadline has passed";
  if (deadline > now + spec.lifetimeMs) return "its deadline is later than the lifetime declared";
  return undefined;
}

/** Egress parts carrying these labels, by the computer each serves. */
async function egressOf(engine: DockerEngine, labels: Record<string, string>, options: CallOptions): Promise<Result<Set<string>>> {
  const filters = JSON.stringify({ label: [EGRESS_LABEL, ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)] });
  const [containers, volumes] = await Promise.all([
    engine.call<Array<{ Labels?: Record<string, string> | null }>>("GET", "/containers/json", { query: { all: true, filters }, signal: options.signal, timeoutMs: CALL_MS }),
    engine.call<{ Volumes?: Array<{ Labels?: Record<string, string> | null }> | null }>("GET", "/volumes", { query: { filters }, signal: options.signal, timeoutMs: CALL_MS }),
  ]);
  if (!containers.ok) return failure(engine, "finding egress parts left by an interrupted create", containers);
  if (!volumes.ok) return failure(engine, "finding egress volumes left by an interrupted create", volumes);
  const parts = [...(containers.value ?? []), ...(volumes.value?.Volumes ?? [])];
  return ok(new Set(parts.map((p) => p.Labels?.[EGRESS_LABEL] ?? "").filter(Boolean)));
}

/**
 * Computers (in any state) carrying these labels, inspected whole, but for a pool's computers a
 * run has claimed (a claim record names them): a refill's computer of the same slot has the same
 * labels, and must neither take one back into the pool nor remove it.
 */
async function computersOf(engine: DockerEngine, labels: Record<string, string>, options: CallOptions): Promise<Result<Inspected[]>> {
  const filters = JSON.stringify({ label: [`${COMPUTER_LABEL}=1`, ...Object.entries(labels).map(([k, v]) => `${k}=${v}`)] });
  const listed = await engine.call<Array<{ Id: string }>>("GET", "/containers/json", { query: { all: true, filters }, signal: options.signal, timeoutMs: CALL_MS });
  if (!listed.ok) return failure(engine, "finding computers left by an interrupted create", listed);
  const out: Inspected[] = [];
  for (const { Id } of listed.value ?? []) {
    const read = await engine.call<Inspected>("GET", `/containers/${Id}/json`, { signal: options.signal, timeoutMs: CALL_MS });
    if (read.status === 404) continue; // removed meanwhile
    if (!read.ok || !read.value) return failure(engine, `inspecting ${Id}`, read);
    out.push(read.value);
  }
  if (!out.some((c) => labelsOf(c)[POOL_LABEL] !== undefined)) return ok(out);
  const claimed = await claimRecords(engine, options);
  if (!claimed.ok) return claimed;
  return ok(out.filter((c) => !claimed.value.has(c.Id)));
}

/** A computer and its egress parts removed, whatever the caller's signal says: a removal must finish. */
async function removeWhole(engine: DockerEngine, inspected: Inspected): Promise<Result<undefined>> {
  const removed = await remove(engine, inspected.Id);
  if (!removed.ok) return removed;
  return removeEgress(engine, nameOf(inspected));
}

/**
 * Before a create for an owner: the computer of the same declaration an interrupted create
 * left, adopted when whole and as declared (its ref, read back), else undefined once every
 * such computer and egress part is removed.
 */
export async function adoptOrClear(
  provider: Adopter,
  spec: ComputerSpec,
  owner: string,
  defaults: PlanDefaults,
  options: CallOptions = {},
): Promise<Result<ComputerRef | undefined>> {
  const claim = claimLabels(owner, spec);
  const declared = { [DECLARATION_LABEL]: claim[DECLARATION_LABEL]! };
  const found = await computersOf(provider.engine, declared, options);
  if (!found.ok) return found;
  let adopted: ComputerRef | undefined;
  for (const candidate of found.value) {
    if (adopted === undefined && candidate.State?.Running) {
      const read = await provider.read({ id: candidate.Id }, options);
      if (!read.ok && read.error.code === "aborted") return read;
      if (read.ok && read.value.state === "running" && read.value.drift.length === 0 && notAsDeclared(spec, read.value, defaults) === undefined) {
        adopted = read.value.ref;
        continue;
      }
    }
    const removed = await removeWhole(provider.engine, candidate);
    if (!removed.ok) return fail(removed.error.code, `${nameOf(candidate)}, left by an interrupted create of this computer, could not be removed: ${removed.error.message}`);
  }
  // Egress parts whose computer was never made (cut off between the volume and the container).
  const parts = await egressOf(provider.engine, declared, options);
  if (!parts.ok) return parts;
  for (const computer of parts.value) {
    if (computer === adopted?.name) continue;
    const removed = await removeEgress(provider.engine, computer);
    if (!removed.ok) return removed;
  }
  return ok(adopted);
}

/** Docker's Created (RFC 3339, up to nanoseconds) as a string that sorts in time order. */
function createdKey(created: unknown): string {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d+))?(.*)$/.exec(String(created ?? ""));
  return m ? `${m[1]}.${(m[2] ?? "").padEnd(9, "0")}${m[3]}` : "";
}

/**
 * After a delete: the owner's computers made before the one deleted, which an interrupted
 * create left and a later create, declared otherwise, did not adopt. One made after it (a
 * replace's new computer) stays.
 */
export async function removeEarlier(engine: DockerEngine, deleted: Inspected): Promise<Result<string[]>> {
  const owner = labelsOf(deleted)[OWNER_LABEL];
  if (owner === undefined) return ok([]);
  const found = await computersOf(engine, { [OWNER_LABEL]: owner }, {});
  if (!found.ok) return found;
  const before = createdKey(deleted.Created);
  const removed: string[] = [];
  for (const other of found.value) {
    if (other.Id === deleted.Id || !(createdKey(other.Created) < before)) continue;
    const gone = await removeWhole(engine, other);
    if (!gone.ok) return gone;
    removed.push(nameOf(other));
  }
  return ok(removed);
}
