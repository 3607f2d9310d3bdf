// /work's mode, read from inside. runc copies the mode of a directory already at a tmpfs's mount
// point onto the tmpfs, and Docker makes the workdir (/work) before runc mounts it, so /work comes
// up 0755 whatever mode= says, and docker inspect cannot see it (measured on Engine 20.10.24 with
// runc 1.1.5). computerd init narrows the home its user owns as it starts; create, attach and the
// drift check read the mode back, so a home left wider is drift.
import type { ComputerClient } from "../daemon/client.js";
import { HOME } from "./constants.js";

/** /work's permission bits as the daemon stats them. */
async function modeOf(client: ComputerClient, signal?: AbortSignal): Promise<number> {
  const stat = await client.call("files.stat", { path: HOME }, { signal });
  return stat.mode & 0o777;
}

function sentence(mode: number): string {
  return `${HOME} reads mode ${mode.toString(8).padStart(4, "0")} from inside, not 0700: it is the user's alone`;
}

/** The mismatch, or undefined when /work is 0700; reads only. */
export async function homeDrift(client: ComputerClient, signal?: AbortSignal): Promise<string | undefined> {
  const mode = await modeOf(client, signal);
  return mode === 0o700 ? undefined : sentence(mode);
}
