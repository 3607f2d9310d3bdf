// A computer's home (/work) in its snapshot. The home is a tmpfs, which the engine's commit does
// not read, and it is where the computer's files go (ComputerFiles, an app, a task's work): so a
// take reads it through the daemon as a tar, the snapshot's image holds that tar as one more layer
// (a single file, HOME_ARCHIVE), and a fork puts it back into its own home once its daemon answers.
import { createHash } from "node:crypto";
import type { CallOptions, ComputerClient } from "../daemon/client.js";
import { pullTar, pushTar, readFile } from "../daemon/files.js";
import { ok, type Result } from "../daemon/result.js";
import { HOME } from "./constants.js";
import { tarOf } from "./tar.js";

/** Where a snapshot's image holds its computer's home, as a tar the fork's user may read. */
export const HOME_ARCHIVE = "/.agentrun-home.tar";

/** The home read through the daemon, as a layer holding it: the layer's bytes and its diff id. */
export async function homeLayer(client: ComputerClient, options: CallOptions): Promise<Result<{ layer: Buffer; diffId: string }>> {
  const home = await pullTar(client, HOME, options);
  if (!home.ok) return home;
  const layer = tarOf([{ path: HOME_ARCHIVE.slice(1), mode: 0o444, bytes: home.value }]);
  return ok({ layer, diffId: `sha256:${createHash("sha256").update(layer).digest("hex")}` });
}

/** A fork's home as its snapshot's was: the image's archive extracted into it by the daemon (as the computer's user). */
export async function restoreHome(client: ComputerClient, options: CallOptions): Promise<Result<{ entries: number }>> {
  const archive = await readFile(client, HOME_ARCHIVE, options);
  if (!archive.ok) return archive;
  return pushTar(client, HOME, archive.value, options);
}
