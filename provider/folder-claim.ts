// A Mount's claim on its run folder, written before the folder is made: a folder has no label,
// so the claim is a small file kept under ~/.cache/agentrun-computer/mounts, named by the hash
// of the Mount's owner (the stack's folder and its URN). It says whether this resource made the
// folder. A create cut off after its mkdir leaves the claim, so the next create of the same
// resource knows the folder is its own (and a destroy removes it), instead of taking it for the
// user's. Only the path's hash is kept when the path is a secret.
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

export const CLAIMS = join(homedir(), ".cache", "agentrun-computer", "mounts");

export interface FolderClaim {
  /** The folder's path, or undefined when it is a secret. */
  path?: string;
  pathHash: string;
  /** The folder was not there when the claim was written: this resource makes it. */
  made: boolean;
}

const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const fileOf = (owner: string, dir: string) => join(dir, `${sha(owner).slice(0, 32)}.json`);

/** The claim an earlier create of this owner left, if any. */
export async function readClaim(owner: string, dir = CLAIMS): Promise<FolderClaim | undefined> {
  const text = await readFile(fileOf(owner, dir), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const claim = JSON.parse(text) as FolderClaim;
    return typeof claim.pathHash === "string" && typeof claim.made === "boolean" ? claim : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a claim is on this path. */
export const claimsPath = (claim: FolderClaim, path: string): boolean => claim.pathHash === sha(path);

/** Writes the claim (0600, in a 0700 folder) before the folder is made. */
export async function writeClaim(owner: string, path: string, made: boolean, secretPath: boolean, dir = CLAIMS): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const claim: FolderClaim = { ...(secretPath ? {} : { path }), pathHash: sha(path), made };
  await writeFile(fileOf(owner, dir), `${JSON.stringify(claim)}\n`, { mode: 0o600 });
}

export async function dropClaim(owner: string, dir = CLAIMS): Promise<void> {
  await rm(fileOf(owner, dir), { force: true });
}
