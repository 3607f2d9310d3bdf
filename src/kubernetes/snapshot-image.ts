// A Kubernetes snapshot as an image, the pure half: its name (snapshot://kubernetes/<the image by
// digest in the cluster's registry>, so a fork's Pod pulls exactly it, on any node), the image a
// fork's Pod runs and how that is read back, and the manifest the snapshot is pushed with (the
// base image's layers as they are, then the home's layer, in the base manifest's own family of
// media types).
import { digestOf } from "../kits/image/snapshot-config.js";
import { forkProblem, parseSnapshotImage, snapshotImage } from "../contract/state.js";
import type { Refusal } from "../daemon/result.js";
import { imageAt } from "./registry.js";

/** The repository, in the registry of the image a computer started from, that its snapshots are pushed to. */
export const SNAPSHOT_REPOSITORY = "agentrun-snapshot";

/** What a snapshot holds, in words, and what it leaves out. */
export const SNAPSHOT_HOLDS =
  "the computer's home (/work, read through its daemon, with owner and mode, and put back into a fork's home as it starts), on the image the computer started from (its layers as they are, by digest); not the Pod's other writable files (/tmp), the daemon (/opt/agentrun, uploaded into each Pod), its socket folder (/run/agentrun), nor the Pod's config (labels, environment, deadline)";

const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** A descriptor in a manifest. */
export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  [key: string]: unknown;
}

/** A single-platform image manifest, OCI's or Docker's schema 2. */
export interface ImageManifest {
  schemaVersion: 2;
  mediaType: string;
  config: Descriptor;
  layers: Descriptor[];
}

const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
const DOCKER_MANIFEST = "application/vnd.docker.distribution.manifest.v2+json";
/** A manifest's family: the config's and an uncompressed layer's media types. */
const FAMILY: Record<string, { config: string; layer: string }> = {
  [OCI_MANIFEST]: { config: "application/vnd.oci.image.config.v1+json", layer: "application/vnd.oci.image.layer.v1.tar" },
  [DOCKER_MANIFEST]: { config: "application/vnd.docker.container.image.v1+json", layer: "application/vnd.docker.image.rootfs.diff.tar" },
};

/** The image by digest a snapshot names; undefined for another provider's, or one that names no image by digest. */
export function snapshotRefOf(image: string): string | undefined {
  const parsed = parseSnapshotImage(image);
  if (parsed?.provider !== "kubernetes") return undefined;
  const at = imageAt(parsed.id);
  return at && DIGEST.test(at.reference) && parsed.id.startsWith(`${at.host}/`) && parsed.id.endsWith(`@${at.reference}`) ? parsed.id : undefined;
}

/** The snapshot's image for its place in a registry. */
export const kubeSnapshotImage = (host: string, digest: string) => snapshotImage("kubernetes", `${host}/${SNAPSHOT_REPOSITORY}@${digest}`);

/** The image a Pod runs for a spec's image: a snapshot's by digest, any other as named. */
export const podImageOf = (image: string): string => snapshotRefOf(image) ?? image;

/** A spec's image as a fork's: another provider's snapshot, or a Kubernetes one that names no image by digest, refused in words. */
export function forkRefusal(image: string): Refusal | undefined {
  const other = forkProblem(image, "kubernetes");
  if (!other.ok) return { field: "image", message: other.error.message };
  if (parseSnapshotImage(image) && !snapshotRefOf(image))
    return {
      field: "image",
      message: `image ${JSON.stringify(image.slice(0, 160))} is no Kubernetes snapshot's: one is snapshot://kubernetes/<registry>/<repository>@sha256:<64 hex digits>, as a take gives it`,
    };
  return undefined;
}

/** The manifest of the platform asked for, out of an index; undefined when the index has none. */
export function platformOf(
  index: { manifests?: Array<{ digest?: string; platform?: { os?: string; architecture?: string } }> },
  arch: string,
): string | undefined {
  return index.manifests?.find((m) => m.platform?.os === "linux" && m.platform.architecture === arch && typeof m.digest === "string")?.digest;
}

/** Whether a media type is an index (many platforms) rather than one image's manifest. */
export const isIndex = (mediaType: string) => mediaType.includes("index") || mediaType.includes("manifest.list");

/**
 * The snapshot's manifest: the base's layers as they are, the home's layer (uncompressed: its
 * digest is its diff id) after them, the new config; in the base manifest's family of media
 * types. Undefined for a base manifest of a kind not read here.
 */
export function snapshotManifest(base: ImageManifest, config: Buffer, home: Buffer): { bytes: Buffer; digest: string; mediaType: string } | undefined {
  const family = FAMILY[base.mediaType];
  if (!family || base.schemaVersion !== 2 || !Array.isArray(base.layers)) return undefined;
  const manifest: ImageManifest = {
    schemaVersion: 2,
    mediaType: base.mediaType,
    config: { mediaType: family.config, digest: digestOf(config), size: config.length },
    layers: [...base.layers, { mediaType: family.layer, digest: digestOf(home), size: home.length }],
  };
  const bytes = Buffer.from(JSON.stringify(manifest));
  return { bytes, digest: digestOf(bytes), mediaType: base.mediaType };
}
