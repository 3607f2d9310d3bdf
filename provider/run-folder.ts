// The run's folder on this host, for the Mount resource's `bind` kind: making, reading back,
// healing and removing it, its path held to the library's bind rule (src/contract/mount.ts) and its owner
// to the user rule (src/contract/user.ts). Expected failures are results, not throws.
import { lstat, mkdir, chown, chmod, rm, rmdir } from "node:fs/promises";
import { bindPathProblem } from "../src/contract/mount.js";
import { fail, ok, type Result } from "../src/daemon/result.js";
import { userText, type User } from "../src/contract/user.js";

export const FOLDER_MODE = 0o700;

export const modeText = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0");

export type FolderState = { owner: User; mode: number };

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
export function folderDrift(path: string, want: User, got: FolderState): string[] {
  const drift: string[] = [];
  if (got.owner.uid !== want.uid || got.owner.gid !== want.gid) drift.push(`the run folder ${path} is owned by ${userText(got.owner)}, not ${userText(want)}`);
  if (got.mode !== FOLDER_MODE) drift.push(`the run folder ${path} has mode ${modeText(got.mode)}, not ${modeText(FOLDER_MODE)}`);
  return drift;
}

/**
 * Makes the folder when missing (its missing parents 0755, owned by this process), gives it to
 * the owner with mode 0700, and checks it is still canonical. A folder already there is taken
 * as it is found and given to the owner (made: false). On failure, removes what it made.
 */
export async function makeFolder(path: string, owner: User): Promise<Result<{ made: boolean; parents: string[] }>> {
  const problem = bindPathProblem(path, { mayBeMissing: true });
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
    const again = bindPathProblem(path);
    if (again) {
      await undo();
      return fail("refused", again);
    }
    await chown(path, owner.uid, owner.gid);
    await chmod(path, FOLDER_MODE);
    return ok({ made: madeDirs.includes(path), parents: madeDirs.filter((dir) => dir !== path) });
  } catch (e) {
    await undo();
    return fail(errnoCode(e), folderError(path, owner, e));
  }
}

/** Gives an existing folder back to its owner and mode (an update after drift). */
export async function healFolder(path: string, owner: User): Promise<Result<undefined>> {
  const problem = bindPathProblem(path);
  if (problem) return fail("invalid", problem);
  try {
    await chown(path, owner.uid, owner.gid);
    await chmod(path, FOLDER_MODE);
    return ok();
  } catch (e) {
    return fail(errnoCode(e), folderError(path, owner, e));
  }
}

/** Removes the folder and what it holds; one already gone is fine. Never follows a link. */
export async function removeFolder(path: string): Promise<Result<undefined>> {
  try {
    const st = await lstat(path).catch((e) => ((e as NodeJS.ErrnoException).code === "ENOENT" ? undefined : Promise.reject(e)));
    if (st === undefined) return ok();
    if (!st.isDirectory()) return fail("refused", `the run folder ${path} is no longer a directory; it was left as it is`);
    await rm(path, { recursive: true, force: true });
    return ok();
  } catch (e) {
    return fail(errnoCode(e), `the run folder ${path} could not be removed: ${(e as Error).message}`);
  }
}

/** The parent folders a create made, deepest first, each removed only while empty: a folder someone else put something in stays, and so does every one above it. */
export async function removeEmptyParents(parents: readonly string[]): Promise<void> {
  for (const dir of [...parents].sort((a, b) => b.length - a.length)) {
    const removed = await rmdir(dir).then(
      () => true,
      (e: NodeJS.ErrnoException) => e.code === "ENOENT",
    );
    if (!removed) return;
  }
}

function errnoCode(e: unknown): "denied" | "failed" {
  const code = (e as NodeJS.ErrnoException).code;
  return code === "EPERM" || code === "EACCES" ? "denied" : "failed";
}

function folderError(path: string, owner: User, e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === "EPERM")
    return `the run folder ${path} could not be given to ${userText(owner)}: only root may change a folder's owner; run as root, or declare the user this process runs as`;
  if (code === "EACCES") return `the run folder ${path} could not be made: permission denied in its parent folder`;
  return `the run folder ${path} could not be made: ${(e as Error).message}`;
}
