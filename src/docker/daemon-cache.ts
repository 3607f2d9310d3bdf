// The provider's own copy of the daemon: computerd-<sha256> in daemonCache, mode 0755, so every
// computer user may run it whatever mode daemonPath has. A computer binds the copy, never
// daemonPath, and the same bytes give the same path in every process (the drift check compares it).
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

const STICKY = 0o1000;

export const DEFAULT_DAEMON_CACHE = path.join(homedir(), ".cache", "agentrun-computer");

/** Thrown in words when the cache directory cannot be trusted; the provider turns it into a result. */
export class DaemonCacheError extends Error {
  override readonly name = "DaemonCacheError";
}

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Where the copy of the daemon of this sha256 (daemonDigest's) lives. */
export function daemonCopyPath(cache: string, digest: string): string {
  return path.join(cache, `computerd-${digest}`);
}

const digests = new Map<string, { version: string; digest: Promise<string> }>();

/**
 * The sha256 (hex) of the daemon at daemonPath, hashed once per version of the file (its inode,
 * size and time): a fleet's reads at once share it, where each held the whole binary (4 MiB each,
 * most of a plugin's memory in a refresh of 100). Throws when the file cannot be read, and in
 * words when it is not a regular file: a named pipe would be waited on, never read to its end.
 */
export async function daemonDigest(daemonPath: string): Promise<string> {
  const stat = await fs.stat(daemonPath);
  if (!stat.isFile()) throw new Error(`${daemonPath} is not a regular file (a daemon is the computerd binary itself, not a pipe or a device)`);
  const version = `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
  let known = digests.get(daemonPath);
  if (known?.version !== version) {
    const digest = fs.readFile(daemonPath).then(sha256);
    digest.catch(() => digests.delete(daemonPath));
    known = { version, digest };
    digests.set(daemonPath, known);
  }
  return known.digest;
}

/**
 * Makes the directory 0700 when missing, and refuses one that is a link, another user's, of
 * another mode, or below a directory another user may write. An existing directory is never
 * changed.
 */
export async function trustedDir(dir: string): Promise<void> {
  const uid = process.getuid?.() ?? 0;
  for (let above = path.dirname(dir); ; above = path.dirname(above)) {
    const a = await fs.stat(above).catch(() => undefined);
    if (!a) continue; // made below, 0700
    const othersOwn = a.uid !== uid && a.uid !== 0;
    // A sticky directory (/tmp) lets nobody else rename or remove what is ours in it.
    const othersWrite = (a.mode & 0o022) !== 0 && (a.mode & STICKY) === 0;
    if (othersOwn || othersWrite) {
      throw new DaemonCacheError(
        `the daemon cache ${dir} is below ${above}, which another user may write; give daemonCache a directory only this user and root may change`,
      );
    }
    if (above === path.dirname(above)) break;
  }
  let stat = await fs.lstat(dir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (!stat) {
    await fs.mkdir(dir, { recursive: true, mode: 0o700 });
    stat = await fs.lstat(dir);
  }
  if (stat.isSymbolicLink()) throw new DaemonCacheError(`the daemon cache ${dir} is a symbolic link; give daemonCache a real directory`);
  if (!stat.isDirectory()) throw new DaemonCacheError(`the daemon cache ${dir} is not a directory; give daemonCache a directory`);
  if (stat.uid !== uid)
    throw new DaemonCacheError(`the daemon cache ${dir} is owned by uid ${stat.uid}, not this process's ${uid}; give daemonCache a directory of this user's`);
  if ((stat.mode & 0o777) !== 0o700) {
    throw new DaemonCacheError(
      `the daemon cache ${dir} has mode ${(stat.mode & 0o777).toString(8).padStart(4, "0")}, not 0700; the provider does not change it: chmod 0700 it or give daemonCache another directory`,
    );
  }
}

/**
 * The path of the copy of daemonPath's bytes, written (temporary file, then rename) when missing
 * or when what is there no longer hashes to its name (hashed again only once the file changed).
 */
export async function daemonCopy(daemonPath: string, cache: string): Promise<string> {
  const digest = await daemonDigest(daemonPath);
  await trustedDir(cache);
  const copy = daemonCopyPath(cache, digest);
  const stat = await fs.lstat(copy).catch(() => undefined);
  const there = stat?.isFile() && (stat.mode & 0o7777) === 0o755 ? await daemonDigest(copy).catch(() => undefined) : undefined;
  if (there === digest) return copy;
  const temporary = `${copy}.${randomBytes(6).toString("hex")}.partial`;
  try {
    const bytes = await fs.readFile(daemonPath);
    if (sha256(bytes) !== digest) throw new DaemonCacheError(`the daemon ${daemonPath} changed while it was copied; run the step again`);
    await fs.writeFile(temporary, bytes, { mode: 0o755, flag: "wx" });
    await fs.chmod(temporary, 0o755); // the umask may have narrowed it
    await fs.rename(temporary, copy);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
  return copy;
}
