// E2B's state through its SDK: pause (Sandbox.pause, memory kept) and resume (Sandbox.connect, which
// resumes a paused sandbox), and snapshots (Sandbox.createSnapshot, listSnapshots, deleteSnapshot).
// E2B's snapshot carries no metadata, size or time (its SnapshotInfo is an id and names), so what a
// read gives back is held in the snapshot's name: the computer, the owner's hash and the time taken.
// A caller's labels and note it cannot hold, and a take given them is refused before anything is made.
// A take for an owner adopts or removes what an interrupted take of that owner left, by those names.
import type { CallOptions } from "../daemon/client.js";
import type { AttachBy, ComputerRef, PauseHooks, ReadBack, SnapshotHooks } from "../contract/provider.js";
import { attachedIf } from "../contract/attach.js";
import { OWNER_LABEL, ownerLabel } from "../contract/labels.js";
import { parseSnapshotImage, SNAPSHOT_LABEL, type Snapshot, type SnapshotOptions, snapshotImage } from "../contract/state.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { adoptLeft } from "../contract/snapshot-adopt.js";
import { PROVIDER_ID } from "./constants.js";
import type { E2BSandboxes } from "./sandboxes.js";
import type { E2BSnapshotInfo } from "./sdk.js";

/** agentrun-<the computer's 12 hex>-<the owner's hash, or none>-<ms taken, base 36>-<4 hex>: unique, so no take lands on another's template. */
const NAME = /^agentrun-([0-9a-f]{12})-([0-9a-f]{32}|none)-([0-9a-z]{1,11})-[0-9a-f]{4}$/;

const HOLDS =
  "the sandbox's files and memory as E2B's snapshot keeps them, the daemon's own files among them (a fork's create installs its own over them); E2B reports no size";

/** A snapshot's name for E2B, from what a read gives back. */
export function snapshotName(computer: string, owner: string | undefined, at: number, random = Math.floor(Math.random() * 0x10000)): string {
  const hash = owner === undefined ? "none" : ownerLabel(owner)[OWNER_LABEL]!;
  return `agentrun-${computer.slice("computer-".length)}-${hash}-${at.toString(36)}-${random.toString(16).padStart(4, "0")}`;
}

/** A snapshot as E2B lists it, read back from its name; undefined when no name is one this provider gives. */
export function snapshotOf(info: E2BSnapshotInfo): Snapshot | undefined {
  for (const full of [...info.names, info.snapshotId]) {
    const match = NAME.exec(full.replace(/:[^:/]*$/, "").replace(/^.*\//, ""));
    if (!match) continue;
    const [, computer, owner, at] = match as unknown as [string, string, string, string];
    return {
      image: snapshotImage(PROVIDER_ID, info.snapshotId),
      computer: `computer-${computer}`,
      sizeBytes: 0,
      takenAt: new Date(parseInt(at, 36)).toISOString(),
      holds: HOLDS,
      labels: { [SNAPSHOT_LABEL]: "1", ...(owner === "none" ? {} : { [OWNER_LABEL]: owner }) },
    };
  }
  return undefined;
}

/** Pause and resume: a resumed computer is read back (its daemon answering, its drift checked) before its ref is given. */
export function pauseHooks(sb: E2BSandboxes, read: (by: AttachBy, options: CallOptions) => Promise<Result<ReadBack>>): PauseHooks {
  return {
    keeps: "memory",
    async pause(ref: ComputerRef, options: CallOptions = {}): Promise<Result<undefined>> {
      const found = await sb.target(ref, options.signal);
      if (!found.ok) return found;
      if (found.value.info.state === "paused") return ok();
      // Whatever the answer, paused before (false) or now (true), it is paused.
      const paused = await sb.e2b(`Sandbox.pause of ${ref.name}`, (sdk, opts) => sdk.pause(ref.id, { ...opts, keepMemory: true }), options.signal);
      return paused.ok ? ok() : paused;
    },
    async resume(ref: ComputerRef, options: CallOptions = {}): Promise<Result<ComputerRef>> {
      const found = await sb.target(ref, options.signal);
      if (!found.ok) return found;
      if (found.value.info.state === "paused") {
        const resumed = await sb.sandboxOf(found.value, options.signal);
        if (!resumed.ok) return resumed;
      }
      return attachedIf(await read({ id: ref.id }, options));
    },
  };
}

/** The snapshot of this image at E2B, or not_found. */
async function find(sb: E2BSandboxes, image: string, signal?: AbortSignal): Promise<Result<{ id: string; snapshot: Snapshot | undefined }>> {
  const parsed = parseSnapshotImage(image);
  if (typeof image !== "string" || !parsed || parsed.provider !== PROVIDER_ID)
    return fail("invalid", `${String(image)} is not an E2B snapshot's image (snapshot://e2b/<E2B's snapshot id>)`, { field: "image" });
  const listed = await listSnapshots(sb, { name: parsed.id }, signal);
  if (!listed.ok) return listed;
  const info = listed.value.find((x) => x.snapshotId === parsed.id);
  return info ? ok({ id: parsed.id, snapshot: snapshotOf(info) }) : fail("not_found", `no snapshot ${parsed.id} at E2B`);
}

/** Every snapshot E2B lists with this filter, every page. */
async function listSnapshots(sb: E2BSandboxes, query: { name?: string; sandboxId?: string }, signal?: AbortSignal): Promise<Result<E2BSnapshotInfo[]>> {
  const sdk = await sb.sdk(true);
  if (!sdk.ok) return sdk;
  const out: E2BSnapshotInfo[] = [];
  let pages: ReturnType<typeof sdk.value.listSnapshots> | undefined;
  for (let page = 0; !pages || pages.hasNext; page += 1) {
    if (page >= 1000) return fail("failed", "E2B's listing of snapshots never ended (1000 pages)");
    const read = await sb.e2b(
      "Sandbox.listSnapshots",
      (s, { signal: pageSignal, ...opts }) => (pages ??= s.listSnapshots({ ...opts, ...query, limit: 100 })).nextItems({ ...opts, signal: pageSignal }),
      signal,
    );
    if (!read.ok) return read;
    out.push(...read.value);
  }
  return ok(out);
}

/** Deleted by id; one already gone is ok. */
async function remove(sb: E2BSandboxes, id: string): Promise<Result<undefined>> {
  const gone = await sb.e2b(`Sandbox.deleteSnapshot of ${id}`, (sdk, opts) => sdk.deleteSnapshot(id, opts));
  return gone.ok || gone.error.code === "not_found" ? ok() : gone;
}

/** A take whose answer never came: the snapshot may be there all the same, under its name; words on what was left. */
async function removeByName(sb: E2BSandboxes, name: string): Promise<string> {
  const listed = await listSnapshots(sb, { name });
  if (!listed.ok) return `a snapshot named ${name} may be left: ${listed.error.message}`;
  const words: string[] = [];
  for (const info of listed.value) {
    const gone = await remove(sb, info.snapshotId);
    words.push(gone.ok ? `${info.snapshotId} was deleted` : `${info.snapshotId} may be left: ${gone.error.message}`);
  }
  return words.length ? words.join("; ") : "no snapshot was left";
}

/**
 * Before a take for an owner: the snapshots of this computer whose names carry the owner's hash
 * (an interrupted take's), the newest adopted and the others deleted (adoptLeft).
 */
async function adoptOrClear(sb: E2BSandboxes, ref: ComputerRef, owner: string, signal?: AbortSignal): Promise<Result<Snapshot | undefined>> {
  const listed = await listSnapshots(sb, { sandboxId: ref.id }, signal);
  if (!listed.ok) return listed;
  const hash = ownerLabel(owner)[OWNER_LABEL];
  const left = listed.value.flatMap((info) => {
    const snapshot = snapshotOf(info);
    return snapshot?.computer === ref.name && snapshot.labels[OWNER_LABEL] === hash
      ? [{ snapshot: { id: info.snapshotId, snapshot }, takenAt: Date.parse(snapshot.takenAt) }]
      : [];
  });
  const adopted = await adoptLeft(left, (x) => remove(sb, x.id));
  return adopted.ok ? ok(adopted.value?.snapshot) : adopted;
}

export function snapshotHooks(sb: E2BSandboxes): SnapshotHooks {
  return {
    async take(ref: ComputerRef, options: SnapshotOptions = {}): Promise<Result<Snapshot>> {
      const { signal } = options;
      if (options.labels !== undefined && Object.keys(options.labels).length > 0)
        return fail("unsupported", "an E2B snapshot carries no labels (E2B keeps an id and names alone): take it without labels", { field: "labels" });
      if (options.note !== undefined && options.note !== "")
        return fail("unsupported", "an E2B snapshot carries no note (E2B keeps an id and names alone): take it without a note", { field: "note" });
      const found = await sb.target(ref, signal);
      if (!found.ok) return found;
      if (options.owner !== undefined) {
        const adopted = await adoptOrClear(sb, ref, options.owner, signal);
        if (!adopted.ok) return adopted;
        if (adopted.value) return ok(adopted.value);
      }
      const name = snapshotName(ref.name, options.owner, Date.now());
      const taken = await sb.e2b(
        `Sandbox.createSnapshot of ${ref.name}`,
        (sdk, opts) => sdk.createSnapshot(ref.id, { ...opts, name }),
        signal,
        sb.o.t.snapshotMs,
        (late) => void remove(sb, late.snapshotId),
      );
      if (!taken.ok) {
        if (["invalid", "unauthorized", "not_found", "limit"].includes(taken.error.code))
          return fail(taken.error.code, `${taken.error.message}; nothing was made`);
        return fail(taken.error.code, `${taken.error.message}; ${await removeByName(sb, name)}`);
      }
      const snapshot = snapshotOf(taken.value);
      if (snapshot) return ok(snapshot);
      await remove(sb, taken.value.snapshotId);
      return fail("failed", `E2B answered the snapshot of ${ref.name} as ${taken.value.snapshotId}, without the name it was given, so it was deleted`);
    },
    async read(image: string, options: CallOptions = {}): Promise<Result<Snapshot>> {
      const found = await find(sb, image, options.signal);
      if (!found.ok) return found;
      return found.value.snapshot ? ok(found.value.snapshot) : fail("not_found", `${image} is not a snapshot this provider took`);
    },
    async remove(image: string, options: CallOptions = {}): Promise<Result<undefined>> {
      const found = await find(sb, image, options.signal);
      if (!found.ok) return found.error.code === "not_found" ? ok() : found;
      if (!found.value.snapshot) return fail("not_found", `${image} is not a snapshot this provider took, so it was not deleted`);
      return remove(sb, found.value.id);
    },
  };
}
