// The run's folder on this host, for the Mount resource's `bind` kind: its path rules, and
// making, reading back, healing and removing it. Expected failures are results, not throws.
import { lstat, mkdir, chown, chmod, rm, realpath, rmdir } from "node:fs/promises";
import { posix } from "node:path";

export type Owner = { uid: number; gid: number };
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: { code: string; message: string } };

export const FOLDER_MODE = 0o700;

const fail = (code: string, message: string) => ({ ok: false as const, error: { code, message } });

/** "1000" or "1000:1000", in numbers; a uid alone is its own gid. Never echoes the value. */
export function ownerOf(user: string): Owner | string {
  const m = /^(\d{1,10})(?::(\d{1,10}))?$/.exec(user);
  if (!m) return "user must be a uid or uid:gid in numbers, such as 1000:1000 (a name is refused: the computer's image may not have it)";
  const uid = Number(m[1]);
  const gid = m[2] === undefined ? uid : Number(m[2]);
  if (uid > 0xfffffffe || gid > 0xfffffffe) return "user must be a uid or uid:gid below 4294967295";
  return { uid, gid };
}

export const ownerText = (o: Owner) => `${o.uid}:${o.gid}`;
export const modeText = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");

/**
 * The path's own rules, read from the host without changing it: absolute, canonical (no `.`,
 * `..`, doubled or trailing slash, and no symlink in any part that exists), no NUL, nothing
 * Docker's --mount cannot hold, and every existing part a directory. Returns the problem, or
 * undefined when the path is fine.
 */
export async function pathProblem(path: string): Promise<string | undefined> {
  if (path.includes("\0")) return "the run folder's path has a NUL byte";
  if (!path.startsWith("/")) return `the run folder's path must be absolute (it is "${path}"); give the whole path from /`;
  if (path === "/") return "the run folder cannot be / itself; give a folder of its own, such as /var/tmp/agentrun/runs/r1/work";
  const normal = posix.normalize(path).replace(/\/+$/, "");
  if (normal !== path) return `the run folder's path is not canonical: write it as ${normal}`;
  if (/[,"\n\r]/.test(path)) return "the run folder's path has a comma, a double quote or a line break, which Docker's --mount cannot hold";
  let prefix = "";
  for (const part of path.split("/").slice(1)) {
    prefix += `/${part}`;
    let st;
    try {
      st = await lstat(prefix);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined; // the rest is made at create
      return `the run folder's path cannot be read at ${prefix}: ${(e as Error).message}`;
    }
    if (st.isSymbolicLink()) {
      const target = await realpath(prefix).catch(() => "a place that does not exist");
      return `the run folder's path passes through a symlink at ${prefix} (to ${target}); give its canonical path, without links`;
    }
    if (!st.isDirectory()) return `the run folder's path passes through ${prefix}, which is not a directory`;
  }
  return undefined;
}

export type FolderState = { owner: Owner; mode: number };

/** What is at the path now: a directory's owner and mode, or undefined when no directory is there. */
export async function readFolder(path: string): Promise<FolderState | undefined> {
  try {
    const st = await lstat(path);
    if (!st.isDirectory()) return undefined;
    return { owner: { uid: st.uid, gid: st.gid }, mode: st.mode & 0o7777 };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
}

/** One sentence per way the folder differs from what was declared; empty when it is as declared. */
export function folderDrift(path: string, want: Owner, got: FolderState): string[] {
  const drift: string[] = [];
  if (got.owner.uid !== want.uid || got.owner.gid !== want.gid)
    drift.push(`the run folder ${path} is owned by ${ownerText(got.owner)}, not ${ownerText(want)}`);
  if (got.mode !== FOLDER_MODE) drift.push(`the run folder ${path} has mode ${modeText(got.mode)}, not ${modeText(FOLDER_MODE)}`);
  return drift;
}

/**
 * Makes the folder when missing (its missing parents 0755, owned by this process), gives it to
 * the owner with mode 0700, and checks it is still canonical. A folder already there is taken
 * as it is found and given to the owner (made: false). On failure, removes what it made.
 */
export async function makeFolder(path: string, owner: Owner): Promise<Outcome<{ made: boolean }>> {
  const problem = await pathProblem(path);
  if (problem) return fail("invalid", problem);
  const madeDirs: string[] = [];
  const undo = async () => {
    for (const dir of madeDirs.reverse()) await rmdir(dir).catch(() => undefined);
  };
  try {
    let prefix = "";
    const parts = path.split("/").slice(1);
    for (const [i, part] of parts.entries()) {
      prefix += `/${part}`;
      const leaf = i === parts.length - 1;
      try {
        await mkdir(prefix, { mode: leaf ? FOLDER_MODE : 0o755 });
        madeDirs.push(prefix);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
    }
    // Another process may have put a link in the path meanwhile: check again before giving it away.
    const again = await pathProblem(path);
    if (again) {
      await undo();
      return fail("refused", again);
    }
    await chown(path, owner.uid, owner.gid);
    await chmod(path, FOLDER_MODE);
    return { ok: true, value: { made: madeDirs.includes(path) } };
  } catch (e) {
    await undo();
    return fail(errnoCode(e), folderError(path, owner, e));
  }
}

/** Gives an existing folder back to its owner and mode (an update after drift). */
export async function healFolder(path: string, owner: Owner): Promise<Outcome<void>> {
  const problem = await pathProblem(path);
  if (problem) return fail("invalid", problem);
  try {
    await chown(path, owner.uid, owner.gid);
    await chmod(path, FOLDER_MODE);
    return { ok: true, value: undefined };
  } catch (e) {
    return fail(errnoCode(e), folderError(path, owner, e));
  }
}

/** Removes the folder and what it holds; one already gone is fine. Never follows a link. */
export async function removeFolder(path: string): Promise<Outcome<void>> {
  try {
    const st = await lstat(path).catch((e) => ((e as NodeJS.ErrnoException).code === "ENOENT" ? undefined : Promise.reject(e)));
    if (st === undefined) return { ok: true, value: undefined };
    if (!st.isDirectory()) return fail("refused", `the run folder ${path} is no longer a directory; it was left as it is`);
    await rm(path, { recursive: true, force: true });
    return { ok: true, value: undefined };
  } catch (e) {
    return fail(errnoCode(e), `the run folder ${path} could not be removed: ${(e as Error).message}`);
  }
}

function errnoCode(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code === "EPERM" || code === "EACCES" ? "denied" : "unavailable";
}

function folderError(path: string, owner: Owner, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EPERM")
    return `the run folder ${path} could not be given to ${ownerText(owner)}: only root may change a folder's owner; run as root, or declare the user this process runs as`;
  if (code === "EACCES") return `the run folder ${path} could not be made: permission denied in its parent folder`;
  return `the run folder ${path} could not be made: ${(e as Error).message}`;
}
