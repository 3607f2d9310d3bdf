// A computer's home in its snapshot, wherever the vendor keeps it apart from the image's own files
// (Docker: a tmpfs its commit does not read; Kubernetes: a Pod's files no registry call reads):
// a take reads it through the daemon as a tar, the snapshot's image holds that tar as one more
// layer (a single file, HOME_ARCHIVE), and a fork puts it back into its own home once its daemon
// answers.
import type { CallOptions, ComputerClient } from "../../daemon/client.js";
import { pullTar, pushTar, readFile } from "../../daemon/files.js";
import { ok, type Result } from "../../daemon/result.js";
import { digestOf } from "./snapshot-config.js";
import { tarOf } from "./tar.js";

/** Where a snapshot's image holds its computer's home, as a tar the fork's user may read. */
export const HOME_ARCHIVE = "/.agentrun-home.tar";

/** The home read through the daemon, as a layer holding it: the layer's bytes and its diff id. */
export async function homeLayer(client: ComputerClient, home: string, options: CallOptions): Promise<Result<{ layer: Buffer; diffId: string }>> {
  const read = await pullTar(client, home, options);
  if (!read.ok) return read;
  const layer = tarOf([{ path: HOME_ARCHIVE.slice(1), mode: 0o444, bytes: read.value }]);
  return ok({ layer, diffId: digestOf(layer) });
}

/** A fork's home as its snapshot's was: the image's archive extracted into it by the daemon (as the computer's user). */
export async function restoreHome(client: ComputerClient, home: string, options: CallOptions): Promise<Result<{ entries: number }>> {
  const archive = await readFile(client, HOME_ARCHIVE, options);
  if (!archive.ok) return archive;
  return pushTar(client, home, archive.value, options);
}
