// A Docker snapshot as an image, the pure half: its name (snapshot://docker/<the image's own id>,
// the sha256 of its config, so it is content-addressed), how a fork's container names it and reads
// it back, and the image it is written from. The engine's commit copies the container's whole
// config (every label, the environment, init's command with the owner's deadline) into the image it
// makes; a snapshot's config is written instead (src/kits/image/snapshot-config.ts), from the image
// the computer started from, so nothing of the computer's own config reaches it.
import type { Refusal } from "../daemon/result.js";
import { forkProblem, parseSnapshotImage, SNAPSHOT_LABEL, snapshotImage } from "../contract/state.js";
import type { BaseImage } from "../kits/image/snapshot-config.js";
import { BROWSER_IMAGE, RECIPE_IMAGE_LABEL } from "../kits/browser/labels.js";
import { kindOfLabels, RECIPE_LABEL, recipeHashTag } from "./constants.js";

/** The engine's commit on the way to a snapshot (its config holds the computer's): removed by the take, or by the next take or the janitor. */
export const SNAPSHOT_PART_LABEL = `${SNAPSHOT_LABEL}.part`;
/** The repository a snapshot is tagged in (untagged images are what `docker image prune` removes). */
export const SNAPSHOT_REPOSITORY = "agentrun-snapshot";

const ENGINE_ID = /^sha256:([0-9a-f]{64})$/;
const SNAPSHOT_ID = /^[0-9a-f]{64}$/;

/** What a snapshot holds, in words, and what it leaves out. */
export const SNAPSHOT_HOLDS =
  "the computer's own files as the engine's commit takes them (owner, mode and content), on the image it started from, and its home (/work, read through its daemon and put back into a fork's home as it starts); not /run/agentrun (the daemon's socket folder), the run folder's mount, the daemon (bound in), nor the computer's config (labels, environment, deadline)";

/** The id a snapshot image names on this provider; undefined for another provider's, or an id that is no image id. */
export function snapshotIdOf(image: string): string | undefined {
  const parsed = parseSnapshotImage(image);
  return parsed?.provider === "docker" && SNAPSHOT_ID.test(parsed.id) ? parsed.id : undefined;
}

/** A spec's image as a fork's: another provider's snapshot, or a Docker one that names no image id, refused in words. */
export function forkRefusal(image: string): Refusal | undefined {
  const other = forkProblem(image, "docker");
  if (!other.ok) return { field: "image", message: other.error.message };
  if (parseSnapshotImage(image) && !snapshotIdOf(image))
    return {
      field: "image",
      message: `image ${JSON.stringify(image.slice(0, 120))} is no Docker snapshot's: one is snapshot://docker/<64 hex digits>, as a take gives it`,
    };
  return undefined;
}

/** A fork's snapshot that is not on this engine, in words. */
export function snapshotMissing(image: string): string {
  return `image ${image} is not on this Docker engine: it was taken on another engine, or removed; take a snapshot here, or fork one this engine holds. Nothing was made`;
}

/** The image a container is made from: a snapshot by its id (sha256:<hex>), any other as named. */
export function engineImageOf(image: string): string {
  const id = snapshotIdOf(image);
  return id ? `sha256:${id}` : image;
}

/**
 * A container's Config.Image read back: a snapshot's id (the image's label says it is one) as the
 * snapshot's image; the browser recipe's image, a browser's or a desktop's, as "chromium" (the
 * drift check holds it to the provider's own recipe).
 */
export function imageReadBack(configImage: string, labels: Record<string, string>): string {
  const id = ENGINE_ID.exec(configImage)?.[1];
  if (id && labels[SNAPSHOT_LABEL] === "1") return snapshotImage("docker", id);
  const recipe = labels[RECIPE_LABEL];
  const kind = kindOfLabels(labels);
  const chromium = (kind === "browser" || kind === "desktop") && labels[RECIPE_IMAGE_LABEL] === BROWSER_IMAGE;
  if (chromium && recipe !== undefined && configImage === recipeHashTag(recipe)) return BROWSER_IMAGE;
  return configImage;
}

/** The image a computer started from, as its inspect reads it: the config a snapshot starts from. */
export interface SourceImage {
  Config?: Record<string, unknown> | null;
  Architecture?: string;
  Os?: string;
  Variant?: string;
  RootFS?: { Layers?: string[] };
}

/** The image a computer started from as a snapshot's base (src/kits/image/snapshot-config.ts). */
export function baseOf(source: SourceImage): BaseImage {
  return { config: source.Config, architecture: source.Architecture, os: source.Os, variant: source.Variant, diffIds: source.RootFS?.Layers ?? [] };
}
