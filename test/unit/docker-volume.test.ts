// The volume option's parts that need no engine: the daemon's tree staged on the volume (published
// once, never written over, a hand-edited one left beside a new one), which trees the read-back
// takes, and the create request's subpath mounts. The drift check on a real Docker 28 inspect of
// such a computer is below; create on the newer engine is test/docker/docker-volume.test.ts.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkedSpec } from "../../src/contract/checked.js";
import { createRequest } from "../../src/docker/create-request.js";
import { checkSpec } from "../../src/docker/check.js";
import { planOf } from "../../src/docker/plan.js";
import { CAPABILITIES } from "../../src/docker/provider.js";
import { expectedOf } from "../../src/docker/context.js";
import type { Host } from "../../src/docker/host.js";
import { type DriftExpected, inspectDrift, readBackDrift } from "../../src/docker/drift.js";
import { type Inspected, mountOf } from "../../src/docker/readback.js";
import { daemonTreePath, daemonTreeVerifies, stageDaemonTree, type VolumeDaemon, type VolumeOption } from "../../src/docker/volume.js";
import type { ComputerSpec } from "../../src/contract/provider.js";

const root = mkdtempSync(path.join(tmpdir(), "agentrun-volume-"));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));

const daemon = path.join(root, "computerd");
writeFileSync(daemon, "#!/bin/sh\necho a daemon\n", { mode: 0o600 });
const digest = createHash("sha256").update(readFileSync(daemon)).digest("hex");
const volume = { name: "agentrun_agentrun-data", root };
const cache = path.join(root, "cache");
const mode = (p: string) => (statSync(p).mode & 0o7777).toString(8);

describe("the daemon's tree on the volume", () => {
  it("is staged as daemon-<sha256>/ holding computerd 0755 and an empty egress/ 0755, in a 0700 cache, and reused when the same", async () => {
    const tree = await stageDaemonTree(daemon, cache);
    expect(tree).toBe(daemonTreePath(cache, digest));
    expect(tree).toBe(path.join(cache, `daemon-${digest}`));
    expect(readdirSync(tree).sort()).toEqual(["computerd", "egress"]);
    expect([mode(cache), mode(tree), mode(path.join(tree, "computerd")), mode(path.join(tree, "egress"))]).toEqual(["700", "755", "755", "755"]);
    expect(readFileSync(path.join(tree, "computerd"))).toEqual(readFileSync(daemon));
    expect(readdirSync(path.join(tree, "egress"))).toEqual([]);
    const inode = statSync(tree).ino;
    expect(await stageDaemonTree(daemon, cache)).toBe(tree);
    expect(statSync(tree).ino).toBe(inode);
    // Nothing left of the temporary directory.
    expect(readdirSync(cache)).toEqual([`daemon-${digest}`]);
  });

  it("is taken by the read-back when its subpath is the published tree and it verifies", async () => {
    const tree = await stageDaemonTree(daemon, cache);
    const subpath = path.relative(root, tree);
    expect(await daemonTreeVerifies(volume, cache, digest, subpath)).toBe(true);
    // Another digest's name, a tree outside the cache, a subpath that leaves the root: not the daemon's.
    expect(await daemonTreeVerifies(volume, cache, "0".repeat(64), subpath)).toBe(false);
    expect(await daemonTreeVerifies(volume, cache, digest, `../${path.basename(root)}/${subpath}`)).toBe(false);
    expect(await daemonTreeVerifies(volume, cache, digest, `cache/daemon-${digest}.abc.partial`)).toBe(false);
  });

  it("leaves a published tree that no longer holds the same as it is, publishes the new one beside it as <name>-<random>, and both verify only as they are", async () => {
    const own = path.join(root, "own-cache");
    const first = await stageDaemonTree(daemon, own);
    // A hand edit: the published tree is never written over, since a running computer may mount it.
    writeFileSync(path.join(first, "computerd"), "edited by hand\n");
    const second = await stageDaemonTree(daemon, own);
    expect(path.basename(second)).toMatch(new RegExp(`^daemon-${digest}-[0-9a-f]{12}$`));
    expect(readFileSync(path.join(first, "computerd"), "utf8")).toBe("edited by hand\n");
    expect(readFileSync(path.join(second, "computerd"))).toEqual(readFileSync(daemon));
    const rel = (p: string) => path.relative(root, p);
    expect(await daemonTreeVerifies(volume, own, digest, rel(first))).toBe(false);
    expect(await daemonTreeVerifies(volume, own, digest, rel(second))).toBe(true);
    // The next stage finds the copy beside it: no third tree.
    expect(await stageDaemonTree(daemon, own)).toBe(second);
    expect(readdirSync(own).length).toBe(2);
  });

  it("staged by several providers at once: each uses the tree the first renamed into place, and no temporary directory is left", async () => {
    const shared = path.join(root, "shared-cache");
    const trees = await Promise.all(Array.from({ length: 6 }, () => stageDaemonTree(daemon, shared)));
    expect(new Set(trees)).toEqual(new Set([daemonTreePath(shared, digest)]));
    expect(readdirSync(shared)).toEqual([`daemon-${digest}`]);
  });

  it("verifies mode for mode and entry for entry: a tree with a wider mode or one more file is not the daemon's", async () => {
    const own = path.join(root, "modes-cache");
    const tree = await stageDaemonTree(daemon, own);
    const subpath = path.relative(root, tree);
    chmodSync(path.join(tree, "computerd"), 0o775);
    expect(await daemonTreeVerifies(volume, own, digest, subpath)).toBe(false);
    chmodSync(path.join(tree, "computerd"), 0o755);
    mkdirSync(path.join(tree, "egress", "x"));
    expect(await daemonTreeVerifies(volume, own, digest, subpath)).toBe(false);
    rmSync(path.join(tree, "egress", "x"), { recursive: true });
    expect(await daemonTreeVerifies(volume, own, digest, subpath)).toBe(true);
  });

  it("refuses a cache another user may write into, as the daemon copy does", async () => {
    const open = path.join(root, "open");
    mkdirSync(open, { mode: 0o777 });
    chmodSync(open, 0o777);
    await expect(stageDaemonTree(daemon, path.join(open, "cache"))).rejects.toThrow(/which another user may write/);
  });
});

describe("a computer's create request with the volume option", () => {
  const folder = path.join(root, "disk", "runs", "r1", "work");
  mkdirSync(folder, { recursive: true });
  const spec = { image: "debian:bookworm-slim", lifetimeMs: 600_000, network: "none" as const, mount: { kind: "bind" as const, path: folder } };
  const checked = checkedSpec(spec, checkSpec(spec, { capabilities: CAPABILITIES, volumeRoot: root }));

  it("mounts the daemon's tree read-only at /opt/agentrun and the run folder read-write at /workspace, each the volume's subpath with volume-nocopy, and no bind", () => {
    if (!checked.ok) throw new Error(checked.error.message);
    const plan = planOf(checked.value, {
      name: "computer-000000000001",
      deadline: "2026-12-02T00:00:00.000Z",
      daemon: { volume: volume.name, subpath: `cache/daemon-${digest}` },
      userDefault: { uid: 1000, gid: 1000 },
      volume,
    });
    expect(createRequest(plan).body.HostConfig.Mounts).toEqual([
      {
        Type: "volume",
        Source: volume.name,
        Target: "/opt/agentrun",
        ReadOnly: true,
        VolumeOptions: { NoCopy: true, Subpath: `cache/daemon-${digest}` },
      },
      { Type: "volume", Source: volume.name, Target: "/workspace", ReadOnly: false, VolumeOptions: { NoCopy: true, Subpath: "disk/runs/r1/work" } },
    ]);
  });

  it("refuses a run folder outside the volume's root, or the root itself, in words", () => {
    for (const outside of [tmpdir(), root]) {
      const refusals = checkSpec({ ...spec, mount: { kind: "bind", path: outside } }, { capabilities: CAPABILITIES, volumeRoot: root });
      expect(refusals).toEqual([
        {
          field: "mount.path",
          message: `the run folder ${outside} is not below the volume's root ${root}; with the volume option a run folder must be inside the volume`,
        },
      ]);
    }
  });
});

interface VolumeFixture {
  spec: ComputerSpec;
  volume: VolumeOption;
  daemon: VolumeDaemon;
  deadline: string;
  inspected: Inspected & { HostConfig: { Mounts: Array<Record<string, unknown>> } };
}

/** docker inspect of a computer the newer engine made with the volume option (test/docker/docker-volume.test.ts's), one change made by hand. */
function recorded(edit: (f: VolumeFixture) => void = () => {}): VolumeFixture {
  const f = JSON.parse(readFileSync(new URL("../fixtures/docker/inspect-volume-28.5.2.json", import.meta.url), "utf8")) as VolumeFixture;
  edit(f);
  return f;
}

/** What create's verify holds such a computer to, as the provider writes it (expectedOf). */
function expected(f: VolumeFixture, daemon: DriftExpected["daemon"] = f.daemon): DriftExpected {
  const host = { arch: "amd64", apparmor: false, selinux: false } as Host;
  return expectedOf({ version: "0.1.0", desktop: { image: undefined }, volume: f.volume }, host, {
    uid: 1000,
    gid: 1000,
    deadline: f.deadline,
    daemon,
    kind: "linux",
  });
}

describe("the drift check and read-back of a volume computer on Docker 28 (recorded)", () => {
  it("finds nothing on the computer as create made it, and reads its run folder back as the path below the root", () => {
    const f = recorded();
    expect(inspectDrift(f.spec, f.inspected, expected(f))).toEqual([]);
    expect(mountOf(f.inspected, f.volume)).toEqual(f.spec.mount);
    const held = readBackDrift(f.inspected, CAPABILITIES, undefined, undefined, f.volume);
    expect(held.mismatches).toEqual([]);
    expect(held.spec.mount).toEqual(f.spec.mount);
    // Without the option the same computer's folder is a volume, not a run folder the provider binds.
    expect(mountOf(f.inspected)).toEqual({ other: "a volume mounted at /workspace, not a bind" });
  });

  it("names a daemon on another subpath, one without volume-nocopy, and one bound instead", () => {
    const f = recorded();
    expect(inspectDrift(f.spec, f.inspected, expected(f, { volume: f.volume.name, subpath: "computer-cache/daemon-other" }))).toEqual([
      `HostConfig.Mounts does not hold the daemon at /opt/agentrun as one read-only mount of the volume ${f.volume.name}'s subpath computer-cache/daemon-other (volume-nocopy): it holds ${JSON.stringify([f.inspected.HostConfig.Mounts[0]])}`,
    ]);
    const copied = recorded((g) => delete (g.inspected.HostConfig.Mounts[0]!.VolumeOptions as { NoCopy?: boolean }).NoCopy);
    expect(inspectDrift(copied.spec, copied.inspected, expected(copied))).toHaveLength(1);
    // The provider's copy bound from this process's path: a path the Docker daemon does not have.
    expect(inspectDrift(f.spec, f.inspected, expected(f, "/data/computer-cache/computerd-x"))).toEqual([
      `HostConfig.Mounts does not hold the daemon at /opt/agentrun/computerd as one read-only bind of /data/computer-cache/computerd-x (rprivate): it holds []`,
      "Mounts does not hold the daemon at /opt/agentrun/computerd as one read-only bind of /data/computer-cache/computerd-x (rprivate): it holds []",
      "HostConfig.Mounts holds another mount: a volume at /opt/agentrun",
      "Mounts holds another mount: a volume at /opt/agentrun (an image's VOLUME is drift too)",
    ]);
  });

  it("names a run folder mounted read-only, from another subpath, or as the volume's root", () => {
    const readOnly = recorded((g) => {
      g.inspected.HostConfig.Mounts[1]!.ReadOnly = true;
      g.inspected.Mounts!.find((m) => m.Destination === "/workspace")!.RW = false;
    });
    expect(mountOf(readOnly.inspected, readOnly.volume)).toEqual({
      other: `a read-only mount of ${(readOnly.spec.mount as { path: string }).path} at /workspace`,
    });
    expect(inspectDrift(readOnly.spec, readOnly.inspected, expected(readOnly))).toHaveLength(2);
    const elsewhere = recorded((g) => ((g.inspected.HostConfig.Mounts[1]!.VolumeOptions as { Subpath: string }).Subpath = "disk/agents/a2/runs/r1/work"));
    expect(mountOf(elsewhere.inspected, elsewhere.volume)).toEqual({ kind: "bind", path: `${elsewhere.volume.root}/disk/agents/a2/runs/r1/work` });
    expect(inspectDrift(elsewhere.spec, elsewhere.inspected, expected(elsewhere))).toEqual([
      expect.stringMatching(
        /^HostConfig\.Mounts does not hold the run folder at \/workspace as one read-write mount of the volume \S+'s subpath disk\/agents\/a1\/runs\/r1\/work/,
      ),
    ]);
    const whole = recorded((g) => delete (g.inspected.HostConfig.Mounts[1]!.VolumeOptions as { Subpath?: string }).Subpath);
    expect(mountOf(whole.inspected, whole.volume)).toEqual({
      other: `the volume ${whole.volume.name} mounted whole at /workspace, not a folder below its root`,
    });
  });
});

describe("a daemon that is not a regular file", () => {
  it("is refused in words, never waited on: a named pipe staged onto the volume", async () => {
    const fifo = path.join(root, "computerd.fifo");
    execFileSync("mkfifo", [fifo]);
    await expect(stageDaemonTree(fifo, path.join(root, "fifo-cache"))).rejects.toThrow(
      `${fifo} is not a regular file (a daemon is the computerd binary itself, not a pipe or a device)`,
    );
  });
});
