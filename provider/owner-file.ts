// What a resource's create keeps outside its vendor, in a small JSON file per owner (the stack's
// folder and the resource's URN) under ~/.cache/agentrun-computer/<kind>: only the owner's hash
// names the file, 0600 in a 0700 folder. A Mount's claim on its folder (a folder has no label)
// and a WarmPool's pool id while its create runs (chosen before any computer carries it).
import { createHash } from "node:crypto";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/** The folder a kind of record is kept in. */
export const recordsOf = (kind: string) => join(homedir(), ".cache", "agentrun-computer", kind);

export const sha = (text: string) => createHash("sha256").update(text).digest("hex");
const fileOf = (owner: string, dir: string) => join(dir, `${sha(owner).slice(0, 32)}.json`);

/** The record an earlier step of this owner left, if any, and if `valid` takes it. */
export async function readRecord<T>(owner: string, dir: string, valid: (value: unknown) => value is T): Promise<T | undefined> {
  const text = await readFile(fileOf(owner, dir), "utf8").catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return valid(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export async function writeRecord(owner: string, dir: string, value: unknown): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(fileOf(owner, dir), `${JSON.stringify(value)}\n`, { mode: 0o600 });
}

export async function dropRecord(owner: string, dir: string): Promise<void> {
  await rm(fileOf(owner, dir), { force: true });
}
