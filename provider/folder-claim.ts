// A Mount's claim on its run folder, written before the folder is made: a folder has no label,
// so the claim is a record kept under ~/.cache/agentrun-computer/mounts by the Mount's owner (the
// stack's folder and its URN; owner-file.ts). It says whether this resource made the folder. A
// create cut off after its mkdir leaves the claim, so the next create of the same resource knows
// the folder is its own (and a destroy removes it), instead of taking it for the user's. Only
// the path's hash is kept when the path is a secret.
import { dropRecord, readRecord, recordsOf, sha, writeRecord } from "./owner-file.js";

export const CLAIMS = recordsOf("mounts");

export interface FolderClaim {
  /** The folder's path, or undefined when it is a secret. */
  path?: string;
  pathHash: string;
  /** The folder was not there when the claim was written: this resource makes it. */
  made: boolean;
}

const isClaim = (value: unknown): value is FolderClaim =>
  typeof value === "object" && value !== null && typeof (value as FolderClaim).pathHash === "string" && typeof (value as FolderClaim).made === "boolean";

/** The claim an earlier create of this owner left, if any. */
export const readClaim = (owner: string, dir = CLAIMS): Promise<FolderClaim | undefined> => readRecord(owner, dir, isClaim);

/** Whether a claim is on this path. */
export const claimsPath = (claim: FolderClaim, path: string): boolean => claim.pathHash === sha(path);

/** Writes the claim (0600, in a 0700 folder) before the folder is made. */
export async function writeClaim(owner: string, path: string, made: boolean, secretPath: boolean, dir = CLAIMS): Promise<void> {
  const claim: FolderClaim = { ...(secretPath ? {} : { path }), pathHash: sha(path), made };
  await writeRecord(owner, dir, claim);
}

export const dropClaim = (owner: string, dir = CLAIMS): Promise<void> => dropRecord(owner, dir);
