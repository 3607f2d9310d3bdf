// Docker's snapshots: take (the engine's commit of the computer's container, its config written
// anew by snapshot-image.ts and loaded as the snapshot's own image, then the commit removed), read
// (the image inspected by its id) and remove. The commit's own image holds the computer's config,
// so it never outlives the take: removed on the way out whatever happened, and one left by a take
// that was killed is removed by the next take of its owner, or by the janitor (sweepSnapshotParts).
import { randomBytes } from "node:crypto";
import type { CallOptions } from "../daemon/client.js";
import { DECLARATION_LABEL, OWNER_LABEL, ownerLabels } from "../contract/labels.js";
import type { ComputerRef, Connection, SnapshotHooks } from "../contract/provider.js";
import { SNAPSHOT_LABEL, type Snapshot, type SnapshotOptions, snapshotImage } from "../contract/state.js";
import { fail, ok, refuse, type Result } from "../daemon/result.js";
import type { DockerEngine } from "./api.js";
import type { Pause } from "./options.js";
import { failure } from "./containers.js";
import { targetOf } from "./context.js";
import { WORKSPACE } from "../contract/mount.js";
import type { Refusal } from "../daemon/result.js";
import { COMPUTER_LABEL, HOME, RUN_DIR } from "./constants.js";
import { type Inspected, labelsOf, mountOf, nameOf } from "./readback.js";
import { baseOf, SNAPSHOT_HOLDS, SNAPSHOT_PART_LABEL, SNAPSHOT_REPOSITORY, snapshotIdOf, type SourceImage } from "./snapshot-image.js";
import {
  SNAPSHOT_COMPUTER_LABEL,
  SNAPSHOT_DECLARATION_LABEL,
  SNAPSHOT_OWNER_LABEL,
  snapshotConfig,
  snapshotLabels,
  takeRefusals,
} from "../kits/image/snapshot-config.js";
import { tarOf } from "../kits/image/tar.js";
import { adoptLeft, type Removed } from "../contract/snapshot-adopt.js";
import { homeLayer } from "../kits/image/snapshot-home.js";

const CALL_MS = 30_000;
/** The tmpfs mount points a computer's container has in its own files (create-request.ts tmpfsOptions). */
const MOUNT_POINTS = [RUN_DIR, HOME];
/** A commit copies the container's changed files: a big one takes a while. */
const COMMIT_MS = 600_000;
/** A part older than this is no take's any more: the janitor removes it. */
const PART_AGE_MS = 15 * 60_000;

interface ListedImage {
  Id: string;
  Created?: number;
  Labels?: Record<string, string> | null;
}

interface InspectedImage extends SourceImage {
  Id: string;
  Created?: string;
  Size?: number;
}

/**
 * Why a computer cannot be taken as a snapshot, or undefined: not one of ours, or one whose run
 * folder is in its own files (declared, but no mount there), so a commit would capture it.
 */
export function takeProblem(container: Inspected, declaredMount: boolean): Refusal | undefined {
  if (labelsOf(container)[COMPUTER_LABEL] !== "1")
    return { field: "computer", message: `${nameOf(container)} is not a computer (it has no ${COMPUTER_LABEL}=1 label), so no snapshot of it was taken` };
  const mount = mountOf(container);
  const mounted = (container.Mounts ?? []).some((m) => m.Destination === WORKSPACE && (m.Type === "bind" || m.Type === "volume"));
  if ((mount && "other" in mount && !mounted) || (declaredMount && !mounted))
    return {
      field: "computer",
      message: `${nameOf(container)}'s run folder ${WORKSPACE} is not a mount, so a snapshot would capture it; nothing was made (a run folder is left out only as a bind or volume mount)`,
    };
  return undefined;
}

/** The images carrying these labels. */
async function imagesWith(engine: DockerEngine, labels: string[], options: CallOptions): Promise<Result<ListedImage[]>> {
  const listed = await engine.call<ListedImage[]>("GET", "/images/json", {
    query: { filters: JSON.stringify({ label: labels }) },
    signal: options.signal,
    timeoutMs: CALL_MS,
  });
  return listed.ok ? ok(listed.value ?? []) : failure(engine, "listing snapshot images", listed);
}

/** An image removed by id whatever the caller's signal (a removal must finish); one gone is ok. */
async function removeImage(engine: DockerEngine, id: string, force: boolean): Promise<Removed> {
  const removed = await engine.call("DELETE", `/images/${id}`, { query: { force }, timeoutMs: 60_000 });
  if (removed.ok || removed.status === 404) return ok();
  return { ...failure(engine, `removing the image ${id}`, removed), inUse: removed.status === 409 };
}

/** The commits a take made on the way (by its nonce, or every one of an owner's), removed. */
async function removeParts(engine: DockerEngine, label: string): Promise<Result<undefined>> {
  const parts = await imagesWith(engine, [SNAPSHOT_PART_LABEL, label], {});
  if (!parts.ok) return parts;
  for (const part of parts.value) {
    const removed = await removeImage(engine, part.Id, true);
    if (!removed.ok) return removed;
  }
  return ok();
}

/** A commit whose call was cut off: removed now, then looked for again for a while and removed if it came. */
async function removeLateParts(engine: DockerEngine, nonce: string): Promise<void> {
  for (let i = 0; i < 8; i += 1) {
    await removeParts(engine, `${SNAPSHOT_PART_LABEL}=${nonce}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The janitor's part: commits no take is still using (older than a take could run), removed. */
export async function sweepSnapshotParts(engine: DockerEngine, now = Date.now()): Promise<Result<string[]>> {
  const parts = await imagesWith(engine, [SNAPSHOT_PART_LABEL], {});
  if (!parts.ok) return parts;
  const removed: string[] = [];
  for (const part of parts.value) {
    if (now - (part.Created ?? 0) * 1000 < PART_AGE_MS) continue;
    const gone = await removeImage(engine, part.Id, true);
    if (!gone.ok) return gone;
    removed.push(part.Id);
  }
  return ok(removed);
}

/** A snapshot image read back by its engine id; not_found when it is gone or is no snapshot. */
async function readById(engine: DockerEngine, id: string, options: CallOptions): Promise<Result<Snapshot>> {
  const image = snapshotImage("docker", id);
  const read = await engine.call<InspectedImage>("GET", `/images/sha256:${id}/json`, { signal: options.signal, timeoutMs: CALL_MS });
  if (read.status === 404)
    return fail("not_found", `the snapshot ${image} is not on this Docker engine (removed, or taken on another engine)`, { field: "image" });
  if (!read.ok || !read.value) return failure(engine, `reading the snapshot ${image}`, read);
  const labels = (read.value.Config?.Labels as Record<string, string> | null | undefined) ?? {};
  if (labels[SNAPSHOT_LABEL] !== "1" || labels[SNAPSHOT_PART_LABEL] !== undefined)
    return fail("invalid", `the image ${id} on this Docker engine is not a snapshot (it has no ${SNAPSHOT_LABEL}=1 label)`, { field: "image" });
  // Its own layers' size: the history's newest entries that are the snapshot's (its files', then its home's).
  const history = await engine.call<Array<{ Size?: number; CreatedBy?: string }>>("GET", `/images/sha256:${id}/history`, {
    signal: options.signal,
    timeoutMs: CALL_MS,
  });
  if (!history.ok) return failure(engine, `reading the snapshot ${image}'s history`, history);
  const computer = labels[SNAPSHOT_COMPUTER_LABEL] ?? "";
  const own = (history.value ?? []).findIndex((h) => !(h.CreatedBy ?? "").startsWith(`agentrun snapshot of ${computer}`));
  const sizeBytes = (history.value ?? []).slice(0, own < 0 ? undefined : Math.max(own, 1)).reduce((sum, h) => sum + (h.Size ?? 0), 0);
  return ok({
    image,
    computer,
    sizeBytes,
    takenAt: new Date(read.value.Created ?? 0).toISOString(),
    holds: SNAPSHOT_HOLDS,
    labels,
  });
}

/** The computer's container as it is, for a take: gone and not ours are refused by name. */
async function takenFrom(engine: DockerEngine, ref: ComputerRef, options: CallOptions): Promise<Result<Inspected>> {
  const target = targetOf(ref);
  if (!target.ok) return target;
  const found = await engine.call<Inspected>("GET", `/containers/${encodeURIComponent(target.value)}/json`, { signal: options.signal, timeoutMs: CALL_MS });
  if (found.status === 404)
    return fail("not_found", `the computer ${String(ref.name ?? target.value)} is gone from this Docker engine, so no snapshot of it was taken`, {
      field: "computer",
    });
  if (!found.ok || !found.value) return failure(engine, `inspecting ${target.value}`, found);
  const problem = takeProblem(found.value, ref.spec?.mount !== undefined);
  return problem ? fail("refused", problem.message, { field: problem.field }) : ok(found.value);
}

/**
 * Before a take for an owner: what an interrupted take of the same owner left. Its commits are
 * removed; a snapshot of the same declaration (computer, labels, note) is adopted, the newest,
 * and the others of that declaration removed (one a computer was made from stays: it is known).
 */
async function adoptOrClear(engine: DockerEngine, owner: Record<string, string>, options: CallOptions): Promise<Result<string | undefined>> {
  const parts = await removeParts(engine, `${SNAPSHOT_OWNER_LABEL}=${owner[OWNER_LABEL]}`);
  if (!parts.ok) return parts;
  const found = await imagesWith(engine, [`${SNAPSHOT_DECLARATION_LABEL}=${owner[DECLARATION_LABEL]}`], options);
  if (!found.ok) return found;
  const left = found.value.filter((i) => i.Labels?.[SNAPSHOT_PART_LABEL] === undefined).map((i) => ({ snapshot: i.Id, takenAt: i.Created ?? 0 }));
  const adopted = await adoptLeft(left, (id) => removeImage(engine, id, false));
  return adopted.ok ? ok(adopted.value?.replace(/^sha256:/, "")) : adopted;
}

/** A take: refusals first (nothing made), then the commit, the snapshot's own image loaded, the commit removed. */
/** A connection to a computer's daemon, for its home. */
type Connect = (ref: ComputerRef, options: CallOptions) => Promise<Result<Connection>>;

async function take(
  engine: DockerEngine,
  remote: boolean,
  connect: Connect,
  hold: Pause | undefined,
  ref: ComputerRef,
  options: SnapshotOptions = {},
): Promise<Result<Snapshot>> {
  const refused = refuse(takeRefusals(options.labels, options.note, COMPUTER_LABEL));
  if (!refused.ok) return refused;
  if (remote)
    return fail(
      "unsupported",
      "a snapshot on a remote engine would capture the daemon (put into the computer's files there, not bound); take snapshots on an engine of this machine",
      { field: "computer" },
    );
  const container = await takenFrom(engine, ref, options);
  if (!container.ok) return container;
  const computer = nameOf(container.value);
  const declared =
    options.owner === undefined
      ? undefined
      : ownerLabels(options.owner, { computer: container.value.Id, labels: options.labels ?? {}, note: options.note ?? null });
  if (declared) {
    const adopted = await adoptOrClear(engine, declared, options);
    if (!adopted.ok) return adopted;
    if (adopted.value) return readById(engine, adopted.value, options);
  }
  if (options.signal?.aborted) return fail("aborted", `the snapshot of ${computer} was aborted before the engine was asked; nothing was made`);
  const nonce = randomBytes(8).toString("hex");
  const partLabels = { [SNAPSHOT_PART_LABEL]: nonce, ...(declared ? { [SNAPSHOT_OWNER_LABEL]: declared[OWNER_LABEL]! } : {}) };
  try {
    return await takeWith(engine, connect, hold, ref, container.value, computer, partLabels, declared, options);
  } finally {
    // The commit holds the computer's config: it never outlives its take, whatever happened.
    await removeParts(engine, `${SNAPSHOT_PART_LABEL}=${nonce}`);
  }
}

async function takeWith(
  engine: DockerEngine,
  connect: Connect,
  hold: Pause | undefined,
  ref: ComputerRef,
  container: Inspected,
  computer: string,
  partLabels: Record<string, string>,
  declared: Record<string, string> | undefined,
  options: SnapshotOptions,
): Promise<Result<Snapshot>> {
  const { signal } = options;
  // The home is in memory: read through the daemon, which a paused computer cannot answer.
  if (container.State?.Paused)
    return fail(
      "refused",
      `${computer} is paused, and its home (${HOME}, in memory) is read through its daemon, which answers only while it runs: resume it, take the snapshot, then pause it again; nothing was made`,
      { field: "computer" },
    );
  const connection = await connect(ref, { signal });
  if (!connection.ok) return fail(connection.error.code, `reading ${computer}'s home for its snapshot: ${connection.error.message}; nothing was made`);
  const home = await homeLayer(connection.value.client, HOME, { signal }).finally(() => connection.value.close());
  if (!home.ok) return fail(home.error.code, `reading ${computer}'s home (${HOME}) for its snapshot: ${home.error.message}; nothing was made`);
  // runc gives a tmpfs the mode of the directory it is mounted on, and the commit takes the mount
  // points runc made (0755): a fork's /run/agentrun would come up 0755, which init refuses. The
  // points are set to 0700 beneath the mounts (the engine writes the container's own files; the
  // computer sees its tmpfs, unchanged).
  const points = await engine.call("PUT", `/containers/${container.Id}/archive`, {
    query: { path: "/" },
    body: tarOf(MOUNT_POINTS.map((at) => ({ path: at.slice(1), mode: 0o700, bytes: new Uint8Array(), dir: true }))),
    signal,
    timeoutMs: CALL_MS,
  });
  if (!points.ok) return failure(engine, `setting ${computer}'s tmpfs mount points to 0700`, points);
  // The engine pauses a running container for the commit's moment, as `docker commit` does.
  const committed = await engine.call<{ Id: string }>("POST", "/commit", {
    query: { container: container.Id, pause: true },
    body: { Labels: partLabels },
    signal,
    timeoutMs: COMMIT_MS,
  });
  if (!committed.ok || !committed.value?.Id) {
    // A commit cut off may still be made after the caller is gone: looked for a while, and removed.
    if (committed.aborted || committed.timedOut || committed.unreachable) await removeLateParts(engine, partLabels[SNAPSHOT_PART_LABEL]!);
    return failure(engine, `committing ${computer}`, committed);
  }
  await hold?.("committed", signal);
  const [part, source] = await Promise.all([
    engine.call<InspectedImage>("GET", `/images/${committed.value.Id}/json`, { signal, timeoutMs: CALL_MS }),
    engine.call<InspectedImage>("GET", `/images/${String(container.Image)}/json`, { signal, timeoutMs: CALL_MS }),
  ]);
  if (!part.ok || !part.value) return failure(engine, `reading ${computer}'s commit`, part);
  if (!source.ok || !source.value) return failure(engine, `reading the image ${computer} started from`, source);
  const labels = snapshotLabels(computer, options, declared);
  const committedLayers = part.value.RootFS?.Layers ?? [];
  const written = snapshotConfig(baseOf(source.value), committedLayers, {
    created: new Date().toISOString(),
    computer,
    labels,
    note: options.note,
    home: home.value.diffId,
  });
  // The engine loads an image whose layers it has already from its config alone: only the home's is sent.
  const layers = [...committedLayers, home.value.diffId].map((_, i) => `layer-${i}/layer.tar`);
  const manifest = [{ Config: `${written.id}.json`, RepoTags: [`${SNAPSHOT_REPOSITORY}:${written.id}`], Layers: layers }];
  const archive = tarOf([
    { path: `${written.id}.json`, mode: 0o644, bytes: written.bytes },
    { path: "manifest.json", mode: 0o644, bytes: Buffer.from(JSON.stringify(manifest)) },
    { path: layers[layers.length - 1]!, mode: 0o644, bytes: home.value.layer },
  ]);
  const loaded = await engine.raw("POST", "/images/load", { query: { quiet: true }, body: archive, signal, timeoutMs: CALL_MS });
  const said = loaded.value?.toString("utf8") ?? "";
  if (!loaded.ok || /"error/.test(said)) {
    await removeImage(engine, `sha256:${written.id}`, true);
    return loaded.ok
      ? fail("failed", `loading ${computer}'s snapshot failed: the Docker engine said ${said.trim().slice(0, 300)}`)
      : failure(engine, `loading ${computer}'s snapshot`, loaded);
  }
  await hold?.("loaded", signal);
  if (signal?.aborted) {
    await removeImage(engine, `sha256:${written.id}`, true);
    return fail("aborted", `the snapshot of ${computer} was aborted; what it made was removed`);
  }
  // Made: read back whatever the caller's signal since (as Kubernetes' take), so a cut here never
  // leaves an image the caller was told failed; one that cannot be read back is removed.
  const read = await readById(engine, written.id, {});
  if (!read.ok) await removeImage(engine, `sha256:${written.id}`, true);
  return read;
}

/** The computers an image is in use by, by name, for words. */
async function usersOf(engine: DockerEngine, id: string): Promise<string[]> {
  const found = await engine.call<Array<{ Names?: string[] }>>("GET", "/containers/json", {
    query: { all: true, filters: JSON.stringify({ ancestor: [`sha256:${id}`] }) },
    timeoutMs: CALL_MS,
  });
  return (found.value ?? []).map((c) => (c.Names?.[0] ?? "").replace(/^\//, "")).filter(Boolean);
}

function idOf(image: string): Result<string> {
  const id = snapshotIdOf(image);
  return id
    ? ok(id)
    : fail("invalid", `image ${JSON.stringify(image.slice(0, 120))} is not a Docker snapshot (snapshot://docker/<64 hex digits>)`, { field: "image" });
}

/** The snapshot hooks over an engine; remote: the engine is another host's (refused: the daemon is in the computer's files there); hold: the fault tests' seam. */
export function dockerSnapshots(engine: DockerEngine, remote: boolean, connect: Connect, hold?: Pause): SnapshotHooks {
  return {
    take: (ref, options) => take(engine, remote, connect, hold, ref, options),
    read: async (image, options = {}) => {
      const id = idOf(image);
      return id.ok ? readById(engine, id.value, options) : id;
    },
    remove: async (image, options = {}) => {
      const id = idOf(image);
      if (!id.ok) return id;
      const read = await readById(engine, id.value, options);
      if (!read.ok) return read.error.code === "not_found" ? ok() : read;
      const removed = await removeImage(engine, `sha256:${id.value}`, false);
      if (removed.ok || !removed.inUse) return removed.ok ? ok() : removed;
      const users = await usersOf(engine, id.value);
      return fail(
        "refused",
        `the snapshot ${image} is in use by ${users.length ? `the computer${users.length === 1 ? "" : "s"} ${users.join(", ")}` : "a container"}, so it was not removed: release ${users.length === 1 ? "it" : "them"} first`,
        { field: "image" },
      );
    },
  };
}
