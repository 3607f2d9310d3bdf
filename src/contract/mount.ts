// The run's folder: one spec field, mount, and one path in every computer, /workspace.
// This module loads nothing else of the library: a caller imports the mount rule alone.
import { lstatSync, realpathSync } from "node:fs";
import { posix } from "node:path";

/** Where every computer has the run's folder. */
export const WORKSPACE = "/workspace";

export const MOUNT_KINDS = ["bind", "archil"] as const;
export type MountKind = (typeof MOUNT_KINDS)[number];

export type MountSpec = { kind: "bind"; path: string } | { kind: "archil"; disk: string; region: string; folder: string; token: string };

/** What a provider reads back of a mount: its kind and source, never a token. */
export type MountReadBack =
  { kind: "bind"; path: string } | { kind: "archil"; disk: string; region: string; folder: string; exclusive: boolean; epoch: number } | { other: string };

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
export function checkMount(mount: unknown, declared: readonly MountKind[] | undefined, options: BindPathOptions = {}): MountRefusal[] {
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
    .map((key) => ({
      field: `mount.${key}`,
      message: `mount.${key} is not a field of ${kind === "archil" ? "an" : "a"} ${kind} mount (it has ${allowed.slice(1).join(", ")})`,
    }));
  if (kind === "bind") refusals.push(...bindRefusals(fields.path, options));
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

function bindRefusals(path: unknown, options: BindPathOptions): MountRefusal[] {
  const problem = bindPathProblem(path, options);
  return problem ? [{ field: "mount.path", message: problem }] : [];
}

export interface BindPathOptions {
  /** The folder may be missing (a Mount makes it). */
  mayBeMissing?: boolean;
  /** The folder is on another host (a remote Docker engine's): only its text is checked, as this machine's disk says nothing of it. */
  elsewhere?: boolean;
}

/**
 * The one rule of a bind's path, read from the host without changing it: a non-empty string,
 * absolute, canonical (no `.`, `..`, doubled or trailing slash, and no symlink in any part, so
 * what is read back is what is bound), with no NUL and nothing a bind's options cannot hold
 * (Docker's --mount is comma-separated and quoted), every existing part a directory. The folder
 * itself must be there unless mayBeMissing (a Mount makes it); elsewhere, the text alone. Undefined when the path is fine.
 */
export function bindPathProblem(path: unknown, options: BindPathOptions = {}): string | undefined {
  if (typeof path !== "string" || path.length === 0) return "the run folder's path is a non-empty string";
  if (path.includes("\0")) return "the run folder's path has a NUL byte";
  if (!path.startsWith("/")) return `the run folder's path must be absolute (it is "${path}"); give the whole path from /`;
  if (path === "/") return "the run folder cannot be / itself; give a folder of its own, such as /var/tmp/agentrun/runs/r1/work";
  const normal = posix.normalize(path).replace(/\/+$/, "");
  if (normal !== path) return `the run folder's path is not canonical: write it as ${normal}`;
  if (/[,"\n\r]/.test(path)) return "the run folder's path has a comma, a double quote or a line break, which a bind's options (Docker's --mount) cannot hold";
  if (options.elsewhere) return undefined;
  let prefix = "";
  for (const part of path.split("/").slice(1)) {
    prefix += `/${part}`;
    let st;
    try {
      st = lstatSync(prefix);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") return `the run folder's path cannot be read at ${prefix}: ${(e as Error).message}`;
      return options.mayBeMissing ? undefined : `the run folder ${path} does not exist on the host; make it first`;
    }
    if (st.isSymbolicLink()) {
      let target = "a place that does not exist";
      try {
        target = realpathSync(prefix);
      } catch {
        // a dangling link: named as such
      }
      return `the run folder's path passes through a symlink at ${prefix} (to ${target}); give its canonical path, without links`;
    }
    if (!st.isDirectory())
      return prefix === path ? `the run folder ${path} is not a directory` : `the run folder's path passes through ${prefix}, which is not a directory`;
  }
  return undefined;
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
