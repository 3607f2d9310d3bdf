// The run's folder: one spec field, mount, and one path in every computer, /workspace.
// This module loads nothing else of the library: a caller imports the mount rule alone.
import { realpathSync, statSync } from "node:fs";
import { isAbsolute } from "node:path";

/** Where every computer has the run's folder. */
export const WORKSPACE = "/workspace";

export const MOUNT_KINDS = ["bind", "archil"] as const;
export type MountKind = (typeof MOUNT_KINDS)[number];

export type MountSpec =
  | { kind: "bind"; path: string }
  | { kind: "archil"; disk: string; region: string; folder: string; token: string };

/** What a provider reads back of a mount: its kind and source, never a token. */
export type MountReadBack =
  | { kind: "bind"; path: string }
  | { kind: "archil"; disk: string; region: string; folder: string; exclusive: boolean; epoch: number }
  | { other: string };

/** One refused field of a mount, in words that never hold the value. */
export interface MountRefusal {
  field: string;
  message: string;
}

const BIND_FIELDS = ["kind", "path"];
const ARCHIL_FIELDS = ["kind", "disk", "region", "folder", "token"];

/**
 * The one mount rule every provider's check runs, with no vendor call: every refusal, together,
 * each naming its field. No refusal holds a field's value (a token put in the wrong field).
 */
export function checkMount(mount: unknown, declared: readonly MountKind[] | undefined): MountRefusal[] {
  const takes = declared && declared.length > 0 ? `it takes ${declared.join(", ")}` : "it takes no mount";
  if (typeof mount !== "object" || mount === null || Array.isArray(mount)) {
    return [{ field: "mount", message: `mount is an object with a kind (bind or archil); ${takes}` }];
  }
  const fields = mount as Record<string, unknown>;
  const kind = fields.kind;
  if (kind !== "bind" && kind !== "archil") {
    return [{ field: "mount.kind", message: `mount.kind is bind or archil; ${takes}` }];
  }
  if (!declared?.includes(kind)) {
    return [{ field: "mount", message: `this provider does not take a mount of kind ${kind}; ${takes}` }];
  }
  const allowed = kind === "bind" ? BIND_FIELDS : ARCHIL_FIELDS;
  const refusals: MountRefusal[] = Object.keys(fields)
    .filter((key) => !allowed.includes(key))
    .map((key) => ({ field: `mount.${key}`, message: `mount.${key} is not a field of ${kind === "archil" ? "an" : "a"} ${kind} mount (it has ${allowed.slice(1).join(", ")})` }));
  if (kind === "bind") refusals.push(...bindRefusals(fields.path));
  else {
    for (const key of ["disk", "region", "folder", "token"]) {
      const problem = textProblem(fields[key]);
      if (problem) refusals.push({ field: `mount.${key}`, message: `mount.${key} ${problem}` });
    }
    const folder = fields.folder;
    if (typeof folder === "string" && textProblem(folder) === undefined) {
      if (folder.startsWith("/")) refusals.push({ field: "mount.folder", message: "mount.folder is relative to the disk's root, not absolute" });
      if (folder.split("/").includes("..")) refusals.push({ field: "mount.folder", message: "mount.folder has no .. part" });
    }
  }
  return refusals;
}

function textProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length === 0) return "is a non-empty string";
  if (value.includes("\0")) return "has a NUL byte";
  return undefined;
}

function bindRefusals(path: unknown): MountRefusal[] {
  const problem = textProblem(path);
  if (problem) return [{ field: "mount.path", message: `mount.path ${problem}` }];
  const p = path as string;
  if (!isAbsolute(p)) return [{ field: "mount.path", message: "mount.path is an absolute path on the host" }];
  let real: string;
  try {
    real = realpathSync(p);
  } catch {
    return [{ field: "mount.path", message: `the run folder ${p} does not exist on the host; make it first` }];
  }
  if (real !== p) {
    return [{ field: "mount.path", message: `mount.path ${p} is not canonical: give its real path, ${real}` }];
  }
  if (!statSync(real).isDirectory()) return [{ field: "mount.path", message: `the run folder ${p} is not a directory` }];
  return [];
}

/**
 * What a provider reads back of a mount it made: kind and source, never the token. An Archil
 * mount's epoch is the computer's agentrun.epoch label; without one it reads back as other.
 */
export function readBackOf(mount: MountSpec, epoch?: number): MountReadBack {
  if (mount.kind === "bind") return { kind: "bind", path: mount.path };
  if (epoch === undefined) {
    return { other: "an Archil mount with no epoch: the computer has no agentrun.epoch label to say whose hold it is" };
  }
  return { kind: "archil", disk: mount.disk, region: mount.region, folder: mount.folder, exclusive: true, epoch };
}
