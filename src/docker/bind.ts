// The run folder, bound as it is: the provider never chowns or chmods it, so it checks, as the
// kernel will, that the computer's user may write and search it. That user has no capability,
// root included, so the mode bits are the only way in.
import { promises as fs } from "node:fs";
import type { Host } from "./host.js";

/** Why the folder is not writable by uid:gid, in words, or undefined when it is. */
export async function bindWritableProblem(folder: string, uid: number, gid: number): Promise<string | undefined> {
  let stat;
  try {
    stat = await fs.stat(folder);
  } catch {
    return `the run folder ${folder} does not exist on the host; make it first, owned by ${uid}:${gid}`;
  }
  if (!stat.isDirectory()) return `the run folder ${folder} is not a directory`;
  const mode = stat.mode & 0o777;
  // The kernel takes the first class that matches: owner, else group, else others.
  const bits = stat.uid === uid ? (mode >> 6) & 7 : stat.gid === gid ? (mode >> 3) & 7 : mode & 7;
  if ((bits & 3) === 3) return undefined;
  return `the run folder ${folder} is not writable by the computer's user ${uid}:${gid}: it is owned by ${stat.uid}:${stat.gid} with mode ${mode.toString(8).padStart(4, "0")}; give it to that user (chown ${uid}:${gid}, mode 0700) or ask for the user that owns it`;
}

/** A host that remaps user ids cannot take a bind: the folder's owner is not the computer's user. */
export function remapProblem(host: Host): string | undefined {
  if (!host.remap) return undefined;
  const how = host.remap === "rootless" ? "rootless Docker" : "userns-remap";
  return `this Docker host remaps user ids (${how}), so the run folder's owner on the host is not the computer's user, and the provider does not guess the mapping; make computers with a run folder on a Docker host that does not remap user ids, or make this one with no mount`;
}
