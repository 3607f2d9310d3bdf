// Kubernetes' snapshots: an image in the registry of the image the computer started from (the
// cluster's own, which every node pulls from), made by the distribution API alone: the base
// image's manifest and config read, its layers mounted into the snapshots' repository, the home's
// layer (read through the daemon, src/kits/image/snapshot-home.ts) and a config written anew
// (src/kits/image/snapshot-config.ts) uploaded, then the manifest pushed last: a take cut off
// before that leaves only blobs no manifest names, which the registry's garbage collection
// removes. For an owner, the manifest is pushed under a tag of its declaration, so a take whose
// plugin was killed after the push is adopted by the next one. read is the manifest and config
// read back; remove deletes the manifest by digest, refused while a computer runs from it.
import type { CallOptions } from "../daemon/client.js";
import { DECLARATION_LABEL, ownerLabels } from "../contract/labels.js";
import type { ComputerRef, Connection, SnapshotHooks } from "../contract/provider.js";
import { SNAPSHOT_LABEL, type Snapshot, type SnapshotOptions } from "../contract/state.js";
import { fail, ok, refuse, type Result } from "../daemon/result.js";
import { homeLayer } from "../kits/image/snapshot-home.js";
import { SNAPSHOT_COMPUTER_LABEL, snapshotConfig, snapshotLabels, takeRefusals } from "../kits/image/snapshot-config.js";
import { COMPUTER_LABEL, HOME, podOfId } from "./constants.js";
import type { KubePods } from "./pods.js";
import { computerState, type Pod, recordedSpec, runningImageOf } from "./readback.js";
import { imageAt, type RegistryReach } from "./registry.js";
import { kubeSnapshotImage, podImageOf, SNAPSHOT_HOLDS, SNAPSHOT_REPOSITORY, snapshotManifest, snapshotRefOf } from "./snapshot-image.js";
import { deleteManifest, mountBlobs, pushBlob, pushManifest, readImage, tagged } from "./snapshot-registry.js";

type Connect = (ref: ComputerRef, options: CallOptions) => Promise<Result<Connection>>;

/** The tag an owner's take is pushed under: its declaration's hash (a tag holds up to 128 of [\w.-]). */
const declarationTag = (declaration: string) => `d-${declaration.replace(/[^\w.-]/g, "").slice(0, 120)}`;

/** The computer's Pod as it is, for a take: gone, not ours, or not running, refused by name with nothing made. */
async function takenFrom(sb: KubePods, ref: ComputerRef, signal: AbortSignal | undefined): Promise<Result<Pod>> {
  const pod = podOfId(ref?.id ?? ref?.name);
  if (!pod)
    return fail("invalid", "a Kubernetes computer's ref has its Pod's name (computer-<12 hex digits>), and its uid after a slash", { field: "computer" });
  const read = await sb.get(pod.name, signal);
  const gone = `the computer ${pod.name} is gone from the namespace ${sb.o.namespace}, so no snapshot of it was taken`;
  if (!read.ok) return read.error.code === "not_found" ? fail("not_found", gone, { field: "computer" }) : read;
  // The uid the ref carries proves the Pod is the one made; a Pod of that name made since is not it.
  if (pod.uid !== undefined && read.value.metadata.uid !== pod.uid) return fail("not_found", gone, { field: "computer" });
  if (read.value.metadata.labels?.[COMPUTER_LABEL] !== "1" || !recordedSpec(read.value))
    return fail("refused", `${pod.name} is not a computer (it has no ${COMPUTER_LABEL}=1 label and no spec of ours), so no snapshot of it was taken`, {
      field: "computer",
    });
  if (computerState(read.value) !== "running")
    return fail("refused", `${pod.name} is not running, and its home is read through its daemon: no snapshot of it was taken`, { field: "computer" });
  return read;
}

export class KubeSnapshots implements SnapshotHooks {
  readonly #sb: KubePods;
  readonly #connect: Connect;

  constructor(sb: KubePods, connect: Connect) {
    this.#sb = sb;
    this.#connect = connect;
  }

  #reach(signal: AbortSignal | undefined, ms = this.#sb.o.t.callMs): RegistryReach {
    return { ca: this.#sb.o.creds.ca, ms, signal };
  }

  async take(ref: ComputerRef, options: SnapshotOptions = {}): Promise<Result<Snapshot>> {
    const { signal } = options;
    const refused = refuse(takeRefusals(options.labels, options.note, COMPUTER_LABEL));
    if (!refused.ok) return refused;
    const pod = await takenFrom(this.#sb, ref, signal);
    if (!pod.ok) return pod;
    const computer = pod.value.metadata.name;
    // The image the Pod runs, by the digest its node pulled (a tag may have moved since).
    const base = runningImageOf(pod.value) ?? podImageOf(recordedSpec(pod.value)!.image);
    const at = imageAt(base);
    if (!at)
      return fail("unsupported", `${computer} runs the image ${base.slice(0, 160)}, which names no registry a snapshot could be pushed to; nothing was made`, {
        field: "computer",
      });
    const declared =
      options.owner === undefined
        ? undefined
        : ownerLabels(options.owner, { computer: pod.value.metadata.uid, labels: options.labels ?? {}, note: options.note ?? null });
    const tag = declared ? declarationTag(declared[DECLARATION_LABEL]!) : undefined;
    if (tag) {
      // What an interrupted take of this declaration pushed: adopted.
      const left = await tagged(at.host, SNAPSHOT_REPOSITORY, tag, this.#reach(signal));
      if (!left.ok) return left;
      // (A tag a registry kept past its manifest's delete names nothing: a take anew.)
      const adopted = left.value ? await this.read(kubeSnapshotImage(at.host, left.value), options) : undefined;
      if (adopted && (adopted.ok || adopted.error.code !== "not_found")) return adopted;
    }
    const connection = await this.#connect(ref, { signal });
    if (!connection.ok) return fail(connection.error.code, `reading ${computer}'s home for its snapshot: ${connection.error.message}; nothing was made`);
    const home = await homeLayer(connection.value.client, HOME, { signal }).finally(() => connection.value.close());
    if (!home.ok) return fail(home.error.code, `reading ${computer}'s home (${HOME}) for its snapshot: ${home.error.message}; nothing was made`);
    const image = await readImage(at.host, at.repository, at.reference, this.#sb.o.arch, this.#reach(signal));
    if (!image.ok) return fail(image.error.code, `${image.error.message}; nothing was made`, image.error.field ? { field: image.error.field } : {});
    const source = image.value.config;
    const rootfs = source.rootfs as { diff_ids?: unknown } | undefined;
    const diffIds = Array.isArray(rootfs?.diff_ids) ? rootfs.diff_ids.map(String) : [];
    const labels = snapshotLabels(computer, options, declared);
    const config = snapshotConfig(
      {
        config: source.config as Record<string, unknown> | undefined,
        architecture: typeof source.architecture === "string" ? source.architecture : undefined,
        os: typeof source.os === "string" ? source.os : undefined,
        variant: typeof source.variant === "string" ? source.variant : undefined,
        diffIds,
      },
      diffIds,
      { created: new Date().toISOString(), computer, labels, note: options.note, home: home.value.diffId },
    ).bytes;
    const manifest = snapshotManifest(image.value.manifest, config, home.value.layer);
    if (!manifest || diffIds.length !== image.value.manifest.layers.length)
      return fail(
        "unsupported",
        `the image ${base.slice(0, 160)} has a manifest of a kind a snapshot is not made from (${image.value.manifest.mediaType}); nothing was made`,
        {
          field: "computer",
        },
      );
    const upload = this.#reach(signal, this.#sb.o.t.uploadMs);
    if (at.repository !== SNAPSHOT_REPOSITORY) {
      const mounted = await mountBlobs(
        at.host,
        at.repository,
        SNAPSHOT_REPOSITORY,
        image.value.manifest.layers.map((l) => l.digest),
        this.#reach(signal),
      );
      if (!mounted.ok) return fail(mounted.error.code, `${mounted.error.message}; nothing was made`);
    }
    for (const blob of [home.value.layer, config]) {
      const pushed = await pushBlob(at.host, SNAPSHOT_REPOSITORY, blob, upload);
      if (!pushed.ok) return fail(pushed.error.code, `${pushed.error.message}; nothing was made`);
    }
    // The one step that makes it: before it, nothing names what was uploaded.
    if (signal?.aborted) return fail("aborted", `the snapshot of ${computer} was aborted before its manifest was pushed; nothing was made`);
    // Not cut off by the caller's signal (one small request, bounded on its own): a push given up
    // on here could still land at the registry after a delete of it, and leave a tag behind.
    const pushed = await pushManifest(at.host, SNAPSHOT_REPOSITORY, tag ?? manifest.digest, manifest, this.#reach(undefined));
    const made = kubeSnapshotImage(at.host, manifest.digest);
    if (!pushed.ok) {
      // A push past its bound may have landed: deleted.
      if (pushed.error.code === "timeout") await this.remove(made);
      return pushed;
    }
    if (signal?.aborted) {
      await this.remove(made);
      return fail("aborted", `the snapshot of ${computer} was aborted; what it pushed was deleted`);
    }
    // Made: read back whatever the caller's signal since, so a cut here never leaves a snapshot
    // the caller was told failed; one that cannot be read back is deleted.
    const read = await this.read(made);
    if (!read.ok) await this.remove(made);
    return read;
  }

  async read(image: string, options: CallOptions = {}): Promise<Result<Snapshot>> {
    const at = this.#at(image);
    if (!at.ok) return at;
    const { host, repository, reference } = at.value;
    const read = await readImage(host, repository, reference, this.#sb.o.arch, this.#reach(options.signal));
    if (!read.ok)
      return read.error.code === "not_found"
        ? fail("not_found", `the snapshot ${image} is not in the registry ${host} (removed, or never pushed)`, { field: "image" })
        : read;
    const config = read.value.config.config as { Labels?: Record<string, string> } | undefined;
    const labels = config?.Labels ?? {};
    if (labels[SNAPSHOT_LABEL] !== "1")
      return fail("invalid", `the image ${image} in ${host} is not a snapshot (it has no ${SNAPSHOT_LABEL}=1 label)`, { field: "image" });
    const created = read.value.config.created;
    return ok({
      image,
      computer: labels[SNAPSHOT_COMPUTER_LABEL] ?? "",
      // Its own layer: the home's, the last.
      sizeBytes: read.value.manifest.layers.at(-1)?.size ?? 0,
      takenAt: new Date(typeof created === "string" ? created : 0).toISOString(),
      holds: SNAPSHOT_HOLDS,
      labels,
    });
  }

  async remove(image: string, options: CallOptions = {}): Promise<Result<undefined>> {
    const at = this.#at(image);
    if (!at.ok) return at;
    const read = await this.read(image, options);
    if (!read.ok) return read.error.code === "not_found" ? ok() : read;
    // A fork's Pod runs on once pulled, but one made again (a node lost, a replace) would pull it:
    // never removed under a live computer, as on Docker.
    const pods = await this.#sb.list({}, options.signal);
    if (!pods.ok) return pods;
    const users = pods.value.filter((p) => !p.metadata.deletionTimestamp && recordedSpec(p)?.image === image).map((p) => p.metadata.name);
    if (users.length > 0)
      return fail(
        "refused",
        `the snapshot ${image} is in use by the computer${users.length === 1 ? "" : "s"} ${users.join(", ")}, so it was not removed: release ${users.length === 1 ? "it" : "them"} first`,
        { field: "image" },
      );
    // A removal finishes whatever the caller's signal.
    return deleteManifest(at.value.host, at.value.repository, at.value.reference, this.#reach(undefined));
  }

  #at(image: string) {
    const ref = snapshotRefOf(image);
    const at = ref ? imageAt(ref) : undefined;
    return at
      ? ok(at)
      : fail(
          "invalid",
          `image ${JSON.stringify(image.slice(0, 160))} is not a Kubernetes snapshot (snapshot://kubernetes/<registry>/<repository>@sha256:<64 hex digits>)`,
          {
            field: "image",
          },
        );
  }
}
