// An idempotent create, at every vendor. A computer made for an owner (the Pulumi plugin's
// resource) carries the owner and declaration labels from its vendor's create request on
// (labels.ts ownerLabels), so no moment exists when it is there unlabelled. A create with an
// owner first looks for computers of its declaration an interrupted create left: the first that
// is whole (running, read back with no drift) and as declared is adopted, and every other is
// removed. A delete then also removes the owner's computers made before the one it deletes,
// where the vendor reads back when a computer was made.
import type { CallOptions } from "../daemon/client.js";
import { sameNetwork } from "../egress/list.js";
import { declarationLabel, OWNER_LABEL } from "./labels.js";
import type { ComputerRef, ComputerSpec, ComputerState, ReadBack, SpecDefaults } from "./provider.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { parseUser, userText } from "./user.js";

/** A computer as adoption's lookup lists it: a candidate to adopt or remove. */
export interface Candidate {
  ref: ComputerRef;
  state: ComputerState;
  /** When the vendor made it, as it reads that back (ISO 8601 in one format per vendor, so it sorts as text); absent where it reads none. */
  created?: string | undefined;
}

/** A vendor's creation time as Candidate.created takes it (ISO 8601, which sorts as text); undefined when it reads none. */
export function createdAt(at: string | Date | null | undefined): string | undefined {
  const t = at === undefined || at === null ? Number.NaN : new Date(at).getTime();
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

/** What adoption needs of a provider: its own lookups, so each is as cheap as the vendor allows. */
export interface Adoption {
  /** Every computer of this provider carrying these labels, in any state it still lists. */
  list(labels: Record<string, string>, options: CallOptions): Promise<Result<Candidate[]>>;
  /** The computer read back whole, as read() does: the drift check and hello included. */
  read(by: { id: string }, options: CallOptions): Promise<Result<ReadBack>>;
  /** One computer removed alone, whatever the caller's signal (a removal must finish): never the owner's others, as release's delete removes. */
  remove(ref: ComputerRef): Promise<Result<undefined>>;
  /** What a spec that names none gets (capabilities().defaults). */
  defaults: SpecDefaults | undefined;
  /**
   * What else an interrupted create of this declaration left beside its computers, removed once
   * adoption has chosen (Docker: egress parts whose computer was never made); the adopted
   * computer's own parts stay. Absent: a vendor that makes nothing apart from the computer.
   */
  leftovers?(spec: ComputerSpec, owner: string, adopted: ComputerRef | undefined, options: CallOptions): Promise<Result<undefined>>;
}

/**
 * Why a computer read back whole is not the spec declared, or undefined when it is: the image,
 * the user, each size and the workdir the spec or the provider's defaults name (one the vendor
 * gives of its own, a snapshot's size, is not compared), the mount, the network, the kind when
 * declared, its caller's labels exactly, and a deadline no later than a create now would give.
 */
export function notAsDeclared(spec: ComputerSpec, read: ReadBack, defaults: SpecDefaults = {}, now = Date.now()): string | undefined {
  const got = read.ref.spec;
  if (!got) return "its spec could not be read back";
  const user = parseUser(spec.user ?? defaults.user);
  const want: Array<[string, unknown, unknown]> = [
    ["image", spec.image, got.image],
    ["user", user.ok ? userText(user.value) : spec.user, got.user],
    ["cpus", spec.cpus ?? defaults.cpus, got.cpus],
    ["memoryMb", spec.memoryMb ?? defaults.memoryMb, got.memoryMb],
    ["pids", spec.pids ?? defaults.pids, got.pids],
    ["workdir", spec.workdir ?? defaults.workdir, got.workdir],
    ["kind", spec.kind, got.kind],
  ];
  for (const [field, a, b] of want) if (a !== undefined && a !== b) return `its ${field} reads ${JSON.stringify(b)}, not ${JSON.stringify(a)}`;
  const mount = got.mount && "path" in got.mount ? got.mount.path : undefined;
  // A path may be a secret: the words never hold it.
  if ((spec.mount?.kind === "bind" ? spec.mount.path : undefined) !== mount) return "its mount is not the one declared";
  if (!sameNetwork(got.network, spec.network)) return "its network is not the one declared";
  // The image's own labels may be there too; the declaration label already holds every declared one.
  const missing = Object.entries(spec.labels ?? {}).find(([k, v]) => read.labels[k] !== v);
  if (missing) return `its label ${missing[0]} is not the one declared`;
  const deadline = Date.parse(got.deadline ?? "");
  if (!(deadline > now)) return "its deadline has passed";
  if (deadline > now + spec.lifetimeMs) return "its deadline is later than the lifetime declared";
  return undefined;
}

/**
 * Before a create for an owner: the computer of the same declaration an interrupted create
 * left, adopted when whole and as declared (its ref, read back), else undefined once every such
 * computer is removed.
 */
export async function adoptOrClear(adoption: Adoption, spec: ComputerSpec, owner: string, options: CallOptions = {}): Promise<Result<ComputerRef | undefined>> {
  const found = await adoption.list(declarationLabel(owner, spec), options);
  if (!found.ok) return found;
  let adopted: ComputerRef | undefined;
  for (const candidate of found.value) {
    if (adopted === undefined && candidate.state === "running") {
      const read = await adoption.read({ id: candidate.ref.id }, options);
      if (!read.ok && read.error.code === "aborted") return read;
      if (read.ok && read.value.state === "running" && read.value.drift.length === 0 && notAsDeclared(spec, read.value, adoption.defaults) === undefined) {
        adopted = read.value.ref;
        continue;
      }
    }
    const removed = await adoption.remove(candidate.ref);
    if (!removed.ok)
      return fail(removed.error.code, `${candidate.ref.name}, left by an interrupted create of this computer, could not be removed: ${removed.error.message}`);
  }
  if (adoption.leftovers) {
    const cleared = await adoption.leftovers(spec, owner, adopted, options);
    if (!cleared.ok) return cleared;
  }
  return ok(adopted);
}

/**
 * After a delete: the owner's computers made before the one deleted, which an interrupted create
 * left and a later create, declared otherwise, did not adopt. One made after it (a replace's new
 * computer) stays. Nothing where the deleted one has no owner or the vendor reads no creation time.
 */
export async function removeEarlier(
  adoption: Adoption,
  deleted: { id: string; labels: Record<string, string>; created: string | undefined },
): Promise<Result<string[]>> {
  const owner = deleted.labels[OWNER_LABEL];
  const before = deleted.created;
  if (owner === undefined || before === undefined) return ok([]);
  const found = await adoption.list({ [OWNER_LABEL]: owner }, {});
  if (!found.ok) return found;
  const removed: string[] = [];
  for (const other of found.value) {
    if (other.ref.id === deleted.id || other.created === undefined || !(other.created < before)) continue;
    const gone = await adoption.remove(other.ref);
    if (!gone.ok)
      return fail(gone.error.code, `${other.ref.name}, made for the same resource before the one deleted, could not be removed: ${gone.error.message}`);
    removed.push(other.ref.name);
  }
  return ok(removed);
}
