// A Mount's record of its run folder, written before the folder is made: a folder has no label,
// so it is kept under ~/.cache/agentrun-computer/mounts by the Mount's owner (the
// stack's folder and its URN; owner-file.ts). It says whether this resource made the folder. A
// create cut off after its mkdir leaves the record, so the next create of the same resource knows
// the folder is its own (and a destroy removes it), instead of taking it for the user's. Only
// the path's hash is kept when the path is a secret.
import { dropRecord, readRecord, recordsOf, sha, writeRecord } from "./owner-file.js";

export const FOLDER_RECORDS = recordsOf("mounts");

export interface FolderRecord {
  /** The folder's path, or undefined when it is a secret. */
  path?: string;
  pathHash: string;
  /** The folder was not there when the record was written: this resource makes it. */
  made: boolean;
  /** The parent folders its create made (a clear path's alone), removed with it when empty. */
  parents?: string[];
}

const isFolderRecord = (value: unknown): value is FolderRecord =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as FolderRecord).pathHash === "string" &&
  typeof (value as FolderRecord).made === "boolean" &&
  ((value as FolderRecord).parents === undefined ||
    (Array.isArray((value as FolderRecord).parents) && (value as FolderRecord).parents!.every((p) => typeof p === "string")));

/** The record an earlier create of this owner left, if any. */
export const readFolderRecord = (owner: string, dir = FOLDER_RECORDS): Promise<FolderRecord | undefined> => readRecord(owner, dir, isFolderRecord);

/** Whether a record is on this path. */
export const recordsPath = (record: FolderRecord, path: string): boolean => record.pathHash === sha(path);

/** Writes the record (0600, in a 0700 folder) before the folder is made. */
export async function writeFolderRecord(
  owner: string,
  path: string,
  made: boolean,
  secretPath: boolean,
  dir = FOLDER_RECORDS,
  parents: string[] = [],
): Promise<void> {
  const record: FolderRecord = { ...(secretPath ? {} : { path, ...(parents.length > 0 ? { parents } : {}) }), pathHash: sha(path), made };
  await writeRecord(owner, dir, record);
}

export const dropFolderRecord = (owner: string, dir = FOLDER_RECORDS): Promise<void> => dropRecord(owner, dir);
