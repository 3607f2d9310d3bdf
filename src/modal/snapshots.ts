// Modal's snapshots: a sandbox's filesystem snapshot (the SDK's snapshotFilesystem, which the
// task command router answers with an image id) as snapshot://modal/<image id>, kept until it is
// removed (no TTL); images.fromId reads it back and images.delete removes it. Modal keeps no labels,
// note, size or time on an image: a take given labels or a note is refused, and a read gives back
// what Modal knows (the image and what it holds), with no size, time or source computer.
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import type { SnapshotHooks } from "../contract/provider.js";
import { parseSnapshotImage, SNAPSHOT_LABEL, snapshotImage, type Snapshot } from "../contract/state.js";
import { fail, ok, type Result } from "../daemon/result.js";
import { bounded } from "./calls.js";
import { PROVIDER_ID, type ModalSandboxes } from "./sandboxes.js";

/** What a Modal filesystem snapshot holds, in words. */
export const HOLDS = `the sandbox's whole filesystem as Modal's filesystem snapshot takes it: its files with their owners and modes, the daemon at ${DAEMON_IN_COMPUTER} among them (a fork's upload puts its own in place); no process and no memory; a Modal computer is given no secret and no mount; kept until removed (no expiry)`;

/** The image id of a Modal snapshot image, or why it is none of Modal's. */
export function snapshotImageId(image: string): Result<string> {
  const parsed = parseSnapshotImage(image);
  if (!parsed || parsed.provider !== PROVIDER_ID || !/^im-[0-9A-Za-z]+$/.test(parsed.id))
    return fail("invalid", `${image} is not a Modal snapshot (snapshot://modal/<image id>)`, { field: "image" });
  return ok(parsed.id);
}

const snapshotOf = (imageId: string, computer: string, takenAt: string): Snapshot => ({
  image: snapshotImage(PROVIDER_ID, imageId),
  computer,
  sizeBytes: 0,
  takenAt,
  holds: HOLDS,
  labels: { [SNAPSHOT_LABEL]: "1" },
});

export function modalSnapshots(sb: ModalSandboxes): SnapshotHooks {
  const { t } = sb.o;
  return {
    async take(ref, options = {}) {
      const { signal } = options;
      if (Object.keys(options.labels ?? {}).length > 0)
        return fail("unsupported", "a Modal image keeps no labels, so labels are refused; nothing was taken", { field: "labels" });
      if (options.note) return fail("unsupported", "a Modal image keeps no note, so a note is refused; nothing was taken", { field: "note" });
      const target = await sb.target(ref, signal);
      if (!target.ok) {
        const gone = target.error.code === "not_found" || target.error.code === "gone";
        return gone ? fail("not_found", `${target.error.message}; no snapshot was taken`, { field: "computer" }) : target;
      }
      const { sandbox, own } = target.value;
      const taken = await bounded(() => sandbox.snapshotFilesystem({ ttlMs: null, timeoutMs: t.createMs }), {
        what: `the filesystem snapshot of ${own.name}`,
        ms: t.createMs,
        signal,
        // A take given up on still removes the image that lands later.
        late: (image) => void sb.sdk().then((sdk) => sdk.images.delete(image.imageId).catch(() => undefined)),
      });
      if (!taken.ok) {
        // A sandbox that finished under the take is gone, as one never found is.
        const gone = taken.error.code === "gone" || taken.error.code === "not_found";
        return fail(gone ? "not_found" : taken.error.code, `${taken.error.message}; no snapshot was kept`, gone ? { field: "computer" } : {});
      }
      return ok(snapshotOf(taken.value.imageId, own.name, new Date().toISOString()));
    },
    async read(image, options = {}) {
      const id = snapshotImageId(image);
      if (!id.ok) return id;
      const read = await bounded(async () => (await sb.sdk()).images.fromId(id.value), {
        what: `images.fromId of ${id.value}`,
        ms: t.callMs,
        signal: options.signal,
      });
      if (!read.ok) return read.error.code === "not_found" ? fail("not_found", `the snapshot ${image} is gone from Modal`) : read;
      return ok(snapshotOf(read.value.imageId, "", ""));
    },
    async remove(image, options = {}) {
      const id = snapshotImageId(image);
      if (!id.ok) return id;
      const removed = await bounded(async () => (await sb.sdk()).images.delete(id.value), {
        what: `images.delete of ${id.value}`,
        ms: t.callMs,
        signal: options.signal,
      });
      return removed.ok || removed.error.code === "not_found" ? ok() : removed;
    },
  };
}
