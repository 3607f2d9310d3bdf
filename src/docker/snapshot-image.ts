// A Docker snapshot as an image, the pure half: its name (snapshot://docker/<the image's own id>,
// the sha256 of its config, so it is content-addressed), how a fork's container names it and reads
// it back, the labels it carries, and the config it is written with. The engine's commit copies
// the container's whole config (every label, the environment, init's command with the owner's
// deadline) into the image it makes; a snapshot's config is written here instead, from the image
// the computer started from, so nothing of the computer's own config reaches it.
import { createHash } from "node:crypto";
import { labelRefusals } from "../contract/labels.js";
import type { Refusal } from "../daemon/result.js";
import { forkProblem, parseSnapshotImage, SNAPSHOT_LABEL, snapshotImage } from "../contract/state.js";
import { BROWSER_IMAGE, RECIPE_IMAGE_LABEL } from "../kits/browser/labels.js";
import { COMPUTER_LABEL, kindOfLabels, RECIPE_LABEL, recipeHashTag } from "./constants.js";

/** The computer a snapshot was taken of, by name. */
export const SNAPSHOT_COMPUTER_LABEL = `${SNAPSHOT_LABEL}.computer`;
/** A person's note, kept with it. */
export const SNAPSHOT_NOTE_LABEL = `${SNAPSHOT_LABEL}.note`;
/**
 * The owner's labels (src/contract/labels.ts ownerLabels' values), under the snapshot's own keys:
 * a fork inherits its image's labels, and must not read as made for the snapshot's resource.
 */
export const SNAPSHOT_OWNER_LABEL = `${SNAPSHOT_LABEL}.owner`;
export const SNAPSHOT_DECLARATION_LABEL = `${SNAPSHOT_LABEL}.declaration`;
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

/** A take's labels and note, refused in words: a label as a computer's, and none in the snapshot's own namespace. */
export function takeRefusals(labels: unknown, note: unknown): Refusal[] {
  const out = labels === undefined ? [] : labelRefusals(labels, COMPUTER_LABEL);
  if (labels && typeof labels === "object")
    for (const key of Object.keys(labels))
      if (key === SNAPSHOT_LABEL || key.startsWith(`${SNAPSHOT_LABEL}.`))
        out.push({ field: "labels", message: `the label ${key} is the snapshot's own (${SNAPSHOT_LABEL}); choose another key` });
  if (note !== undefined && (typeof note !== "string" || note.includes("\0"))) out.push({ field: "note", message: "note is a string with no NUL" });
  return out;
}

/** The image a computer started from, as its inspect reads it: the config a snapshot starts from. */
export interface SourceImage {
  Config?: Record<string, unknown> | null;
  Architecture?: string;
  Os?: string;
  Variant?: string;
  RootFS?: { Layers?: string[] };
}

/** The image config a snapshot is loaded with, as bytes (its sha256 is the image's id). */
export function snapshotConfig(
  source: SourceImage,
  layers: string[],
  at: { created: string; computer: string; labels: Record<string, string>; note?: string | undefined; home?: string },
): { id: string; bytes: Buffer } {
  const config = { ...(source.Config ?? {}) };
  // A snapshot of a fork: its image's snapshot labels are the parent's, not this one's.
  const inherited = Object.entries((config.Labels as Record<string, string> | null | undefined) ?? {}).filter(
    ([k]) => k !== SNAPSHOT_LABEL && !k.startsWith(`${SNAPSHOT_LABEL}.`),
  );
  config.Labels = { ...Object.fromEntries(inherited), ...at.labels };
  // A commit with nothing changed adds no layer: the snapshot's own history entry is then an empty one.
  const added = layers.length > (source.RootFS?.Layers ?? []).length;
  const base = { created: at.created, created_by: `a layer of the image ${at.computer} started from` };
  const mark = { created: at.created, created_by: `agentrun snapshot of ${at.computer}`, ...(at.note ? { comment: at.note } : {}) };
  const history: Array<Record<string, unknown>> = [...(added ? layers.slice(0, -1) : layers).map(() => base), added ? mark : { ...mark, empty_layer: true }];
  // The home's layer last: a fork's daemon puts it back into its home (snapshot-home.ts).
  if (at.home) history.push({ created: at.created, created_by: `agentrun snapshot of ${at.computer}'s home (/work)` });
  const image = {
    architecture: source.Architecture ?? "amd64",
    os: source.Os ?? "linux",
    ...(source.Variant ? { variant: source.Variant } : {}),
    created: at.created,
    config,
    rootfs: { type: "layers", diff_ids: at.home ? [...layers, at.home] : layers },
    history,
  };
  const bytes = Buffer.from(JSON.stringify(image));
  return { id: createHash("sha256").update(bytes).digest("hex"), bytes };
}
