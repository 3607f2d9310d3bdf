// A snapshot's image config, at every vendor that writes its own (Docker loads it into its engine,
// Kubernetes pushes it to the cluster's registry): written from the config of the image the
// computer started from, its layers' diff ids and the snapshot's own appended, and its labels
// (the caller's and the snapshot's own keys), so nothing of the computer's own config (its
// labels, environment, deadline) reaches it. And the words a take's labels and note are held to.
import { createHash } from "node:crypto";
import { DECLARATION_LABEL, labelRefusals, OWNER_LABEL } from "../../contract/labels.js";
import { SNAPSHOT_LABEL } from "../../contract/state.js";
import type { Refusal } from "../../daemon/result.js";

/** A blob's digest as an image's config and manifests name it (a layer's diff id, a config's, a manifest's). */
export const digestOf = (bytes: Buffer) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

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

/** A take's labels and note, refused in words: a label as a computer's (in the vendor's namespace), and none in the snapshot's own. */
export function takeRefusals(labels: unknown, note: unknown, namespace: string): Refusal[] {
  const out = labels === undefined ? [] : labelRefusals(labels, namespace);
  if (labels && typeof labels === "object")
    for (const key of Object.keys(labels))
      if (key === SNAPSHOT_LABEL || key.startsWith(`${SNAPSHOT_LABEL}.`))
        out.push({ field: "labels", message: `the label ${key} is the snapshot's own (${SNAPSHOT_LABEL}); choose another key` });
  if (note !== undefined && (typeof note !== "string" || note.includes("\0"))) out.push({ field: "note", message: "note is a string with no NUL" });
  return out;
}

/**
 * The labels a snapshot carries: the caller's, the snapshot's own (it is one, the computer's name,
 * the note), and for an owner its hashes under the snapshot's keys (declared: ownerLabels').
 */
export function snapshotLabels(
  computer: string,
  options: { labels?: Record<string, string> | undefined; note?: string | undefined },
  declared: Record<string, string> | undefined,
): Record<string, string> {
  return {
    ...options.labels,
    [SNAPSHOT_LABEL]: "1",
    [SNAPSHOT_COMPUTER_LABEL]: computer,
    ...(options.note ? { [SNAPSHOT_NOTE_LABEL]: options.note } : {}),
    ...(declared ? { [SNAPSHOT_OWNER_LABEL]: declared[OWNER_LABEL]!, [SNAPSHOT_DECLARATION_LABEL]: declared[DECLARATION_LABEL]! } : {}),
  };
}

/** The image a snapshot starts from, as its config says it (an OCI image config's fields). */
export interface BaseImage {
  /** Its runtime config (Env, Cmd, Labels…), kept as it is but its snapshot labels. */
  config?: Record<string, unknown> | null | undefined;
  architecture?: string | undefined;
  os?: string | undefined;
  variant?: string | undefined;
  /** Its layers' diff ids. */
  diffIds: string[];
}

/** The labels a snapshot's config carries: the base image's, less a parent snapshot's, then its own. */
function labelsOf(config: Record<string, unknown>, own: Record<string, string>): Record<string, string> {
  const labels = config.Labels;
  const given = labels && typeof labels === "object" ? Object.entries(labels) : [];
  // A snapshot of a fork: its image's snapshot labels are the parent's, not this one's.
  const inherited = given.filter(([k, v]) => typeof v === "string" && k !== SNAPSHOT_LABEL && !k.startsWith(`${SNAPSHOT_LABEL}.`));
  return { ...Object.fromEntries(inherited), ...own };
}

/**
 * The image config a snapshot is made with, as bytes (its sha256 is the image's id, and the
 * config blob's digest): layers are the diff ids of the computer's files (the base's, and a
 * commit's own where the vendor commits), home the diff id of its home's layer, last.
 */
export function snapshotConfig(
  base: BaseImage,
  layers: string[],
  at: { created: string; computer: string; labels: Record<string, string>; note?: string | undefined; home?: string },
): { id: string; bytes: Buffer } {
  const config = { ...(base.config ?? {}) };
  config.Labels = labelsOf(config, at.labels);
  // A commit with nothing changed adds no layer: the snapshot's own history entry is then an empty one.
  const added = layers.length > base.diffIds.length;
  const from = { created: at.created, created_by: `a layer of the image ${at.computer} started from` };
  const mark = { created: at.created, created_by: `agentrun snapshot of ${at.computer}`, ...(at.note ? { comment: at.note } : {}) };
  const history: Array<Record<string, unknown>> = [...(added ? layers.slice(0, -1) : layers).map(() => from), added ? mark : { ...mark, empty_layer: true }];
  // The home's layer last: a fork's daemon puts it back into its home (snapshot-home.ts).
  if (at.home) history.push({ created: at.created, created_by: `agentrun snapshot of ${at.computer}'s home` });
  const image = {
    architecture: base.architecture ?? "amd64",
    os: base.os ?? "linux",
    ...(base.variant ? { variant: base.variant } : {}),
    created: at.created,
    config,
    rootfs: { type: "layers", diff_ids: at.home ? [...layers, at.home] : layers },
    history,
  };
  const bytes = Buffer.from(JSON.stringify(image));
  return { id: createHash("sha256").update(bytes).digest("hex"), bytes };
}
