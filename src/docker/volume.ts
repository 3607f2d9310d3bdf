// The volume option: a provider in a container of the Docker it drives has its files on a named
// volume, paths the Docker daemon does not have, so the daemon and the run's folder are mounted
// as that volume's subpaths (volume-subpath, Engine 26), never binds. The daemon is staged on the
// volume as a tree, daemon-<sha256>/ holding computerd (0755) and an empty egress/ (the egress
// volume's mount point under the read-only tree), published by a rename and never written over;
// the read-back takes any published copy whose contents verify, byte for byte and mode for mode.
import { createHash, randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { DAEMON_IN_COMPUTER } from "../contract/daemon-path.js";
import { DaemonCacheError, daemonDigest, trustedDir } from "./daemon-cache.js";

/** The option settled: the named volume, and where this process has it mounted. */
export interface VolumeOption {
  name: string;
  root: string;
}

/** A daemon on the volume: the tree's subpath below the volume's root. */
export interface VolumeDaemon {
  volume: string;
  subpath: string;
}

/** Where a computer's daemon comes from: a bind of the copy at this path, a tree on the volume, or (undefined) an archive put before start. */
export type DaemonAt = string | VolumeDaemon | undefined;

/** The tree is mounted here, read-only, so the daemon is DAEMON_IN_COMPUTER as on every computer. */
export const DAEMON_DIR = path.posix.dirname(DAEMON_IN_COMPUTER);
const DAEMON_FILE = path.posix.basename(DAEMON_IN_COMPUTER);
const EGRESS_DIR = "egress";

export function isVolumeDaemon(daemon: DaemonAt): daemon is VolumeDaemon {
  return typeof daemon === "object";
}

/** A path at or below root as the subpath Docker takes (no leading slash); undefined when it is not below. */
export function subpathOf(root: string, at: string): string | undefined {
  const rel = path.posix.relative(root, at);
  return rel === "" || rel.startsWith("..") || path.posix.isAbsolute(rel) ? undefined : rel;
}

/** A subpath as this process has it; undefined for one not in the normal form create writes (relative, no . or .. part). */
export function pathOf(volume: VolumeOption, subpath: string): string | undefined {
  const parts = subpath.split("/");
  if (parts.some((p) => p === "" || p === "." || p === "..")) return undefined;
  return path.posix.join(volume.root, subpath);
}

/** An Engine API mount of one of the volume's subpaths: volume-nocopy, so Docker never copies the image's files into the volume. */
export function volumeMount(volume: string, subpath: string, target: string, readOnly: boolean): Record<string, unknown> {
  return { Type: "volume", Source: volume, Target: target, ReadOnly: readOnly, VolumeOptions: { NoCopy: true, Subpath: subpath } };
}

const treeName = (digest: string) => `daemon-${digest}`;

/** Where staging publishes the tree of this digest first (daemon-<sha256> in the cache). */
export function daemonTreePath(cache: string, digest: string): string {
  return path.join(cache, treeName(digest));
}

const mode = (stat: { mode: number }) => stat.mode & 0o7777;

/** Whether dir is a daemon tree as staging makes it: a real 0755 directory holding exactly computerd (0755, these bytes) and an empty 0755 egress/. */
async function treeHolds(dir: string, digest: string): Promise<boolean> {
  const stat = await fs.lstat(dir).catch(() => undefined);
  if (!stat?.isDirectory() || mode(stat) !== 0o755) return false;
  const names = (await fs.readdir(dir).catch(() => [])).sort();
  if (names.join("/") !== [DAEMON_FILE, EGRESS_DIR].sort().join("/")) return false;
  const [file, egress] = await Promise.all([fs.lstat(path.join(dir, DAEMON_FILE)), fs.lstat(path.join(dir, EGRESS_DIR))]).catch(() => [undefined, undefined]);
  if (!file?.isFile() || mode(file) !== 0o755 || !egress?.isDirectory() || mode(egress) !== 0o755) return false;
  if ((await fs.readdir(path.join(dir, EGRESS_DIR)).catch(() => ["?"])).length > 0) return false;
  return (await daemonDigest(path.join(dir, DAEMON_FILE)).catch(() => undefined)) === digest;
}

/** The published trees of this digest in the cache: <name> first, then every <name>-<anything>. */
async function publishedTrees(cache: string, digest: string): Promise<string[]> {
  const name = treeName(digest);
  const names = await fs.readdir(cache).catch(() => [] as string[]);
  return [name, ...names.filter((n) => n.startsWith(`${name}-`)).sort()].map((n) => path.join(cache, n));
}

/**
 * The daemon's tree in the cache, staged when no published one verifies: written in a temporary
 * directory and renamed into place. A tree at the name that no longer holds the same is left as it
 * is (a running computer may mount it) and the new one published beside it as <name>-<random>;
 * one another provider renamed into place first is used. Throws as daemonCopy does.
 */
export async function stageDaemonTree(daemonPath: string, cache: string): Promise<string> {
  const digest = await daemonDigest(daemonPath);
  await trustedDir(cache);
  for (const tree of await publishedTrees(cache, digest)) if (await treeHolds(tree, digest)) return tree;
  const name = daemonTreePath(cache, digest);
  const temporary = `${name}.${randomBytes(6).toString("hex")}.partial`;
  try {
    const bytes = await fs.readFile(daemonPath);
    if (createHash("sha256").update(bytes).digest("hex") !== digest)
      throw new DaemonCacheError(`the daemon ${daemonPath} changed while it was copied; run the step again`);
    await fs.mkdir(temporary, { mode: 0o755 });
    await fs.writeFile(path.join(temporary, DAEMON_FILE), bytes, { mode: 0o755, flag: "wx" });
    await fs.mkdir(path.join(temporary, EGRESS_DIR), { mode: 0o755 });
    // The umask may have narrowed them.
    await Promise.all([temporary, path.join(temporary, DAEMON_FILE), path.join(temporary, EGRESS_DIR)].map((p) => fs.chmod(p, 0o755)));
    const published = await fs.rename(temporary, name).then(
      () => name,
      async (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
        if (await treeHolds(name, digest)) return undefined; // another provider's, the same
        const beside = `${name}-${randomBytes(6).toString("hex")}`;
        await fs.rename(temporary, beside);
        return beside;
      },
    );
    if (published === undefined) {
      await fs.rm(temporary, { recursive: true, force: true });
      return name;
    }
    return published;
  } catch (error) {
    await fs.rm(temporary, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Whether a computer's daemon subpath is one staging publishes for this digest, in this cache on
 * this volume (<name> or <name>-<anything>), and its tree verifies now.
 */
export async function daemonTreeVerifies(volume: VolumeOption, cache: string, digest: string, subpath: string): Promise<boolean> {
  const at = pathOf(volume, subpath);
  if (at === undefined || path.posix.dirname(at) !== cache) return false;
  const base = path.posix.basename(at);
  const name = treeName(digest);
  if (base !== name && !(base.startsWith(`${name}-`) && base.length > name.length + 1)) return false;
  return treeHolds(at, digest);
}

/** The subpath a computer's volume mount at target asks for (HostConfig.Mounts), when it is one of this volume's. */
export function askedSubpath(hostMounts: unknown, volume: string, target: string): string | undefined {
  const mounts = Array.isArray(hostMounts) ? (hostMounts as Array<Record<string, unknown>>) : [];
  const there = mounts.filter((m) => m.Target === target);
  if (there.length !== 1 || there[0]!.Type !== "volume" || there[0]!.Source !== volume) return undefined;
  const subpath = (there[0]!.VolumeOptions as { Subpath?: unknown } | undefined)?.Subpath;
  return typeof subpath === "string" && subpath !== "" ? subpath : undefined;
}
