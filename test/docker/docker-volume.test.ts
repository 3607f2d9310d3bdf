// The volume option on the newer engine (dockerd v28.5.2, built from Go modules by
// scripts/toolchain/build-dockerd.sh, which npm test's set-up runs; skipped in words when it is
// not built, and failed under CI, where a skip would prove nothing): a provider whose
// files are on a named volume, as one in a container of the Docker it drives has them. Here the
// provider runs on the host, and the volume's root is its mountpoint as docker volume inspect
// gives it, which is what a container that mounts the volume sees. The daemon and the run folder
// are the volume's subpaths, never binds; a file is seen on both sides; the read-back and the
// drift check are clean; release removes the computer. (The engine older than 26 refusing the
// option in words, with nothing made, is test/unit/docker-host-refusal.test.ts.)
import { createHash } from "node:crypto";
import { chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerRef } from "../../src/contract/provider.js";
import { DockerProvider } from "../../src/docker/provider.js";
import { newerEngine, type SecondEngine, startSecondEngine } from "../support/second-engine.js";
import { toolchain } from "../support/toolchain.js";

const newer = newerEngine();
const built = "bin" in newer;
const text = (b64: string) => Buffer.from(b64, "base64").toString("utf8");
/** docker inspect's Mounts (in no fixed order) by destination: type, volume, destination, read-write. */
const mountsOf = (inspected: { Mounts: Array<Record<string, unknown>> }) =>
  inspected.Mounts.map((m) => [m.Type, m.Name, m.Destination, m.RW]).sort((a, b) => String(a[2]).localeCompare(String(b[2])));

// CI runs npm test, whose set-up builds the engine: there a missing engine is a failure, never a skip.
describe.runIf(!built && process.env.CI)("the newer engine under CI", () => {
  it("is built by npm test's set-up (bash scripts/setup.sh --tests)", () => {
    expect.fail(`the volume option's tests would skip: ${"skipped" in newer ? newer.skipped : ""}`);
  });
});

describe.skipIf(!built)(built ? "the volume option on the newer engine (Docker Engine 28)" : `skipped: ${"skipped" in newer ? newer.skipped : ""}`, () => {
  const volumeName = `agentrun-volume-${createHash("sha256").update(String(process.pid)).digest("hex").slice(0, 8)}`;
  let engine: SecondEngine;
  let root: string;
  let image: string;
  let docker: DockerProvider;
  let folder: string;
  const spec = () => ({
    image,
    lifetimeMs: 300_000,
    network: "none" as const,
    cpus: 0.5,
    memoryMb: 256,
    pids: 64,
    mount: { kind: "bind" as const, path: folder },
  });

  beforeAll(async () => {
    if (!("bin" in newer)) return;
    engine = await startSecondEngine({ newer });
    // An image with a shell alone: the host's static busybox.
    const dir = mkdtempSync(path.join(tmpdir(), "agentrun-busybox-"));
    try {
      mkdirSync(path.join(dir, "bin"));
      writeFileSync(path.join(dir, "bin", "busybox"), readFileSync("/usr/bin/busybox"), { mode: 0o755 });
      await execa("tar", ["-C", dir, "-cf", path.join(dir, "image.tar"), "bin"]);
      image = "agentrun-busybox:volume";
      const imported = await engine.docker("import", path.join(dir, "image.tar"), image);
      if (imported.exitCode !== 0) throw new Error(`the busybox image could not be imported: ${imported.stderr}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const made = await engine.docker("volume", "create", volumeName);
    if (made.exitCode !== 0) throw new Error(`the volume could not be made: ${made.stderr}`);
    root = (await engine.docker("volume", "inspect", "--format", "{{.Mountpoint}}", volumeName)).stdout;
    folder = path.join(root, "disk", "agents", "a1", "runs", "r1", "work");
    await mkdir(folder, { recursive: true, mode: 0o700 });
    chownSync(folder, 1000, 1000);
    docker = new DockerProvider({
      daemonPath: toolchain().daemon.amd64,
      engine: engine.address,
      docker: "docker",
      user: "1000:1000",
      daemonCache: path.join(root, "computer-cache"),
      volume: { name: volumeName, root },
      // A provider in a container names the Docker host's addresses for an allowlist (this machine is one, too).
      egress: { hostAddresses: ["192.0.2.1"] },
    });
  }, 300_000);
  afterAll(async () => {
    await docker?.engine.close();
    await engine?.dispose();
  }, 120_000);

  describe("a computer whose daemon and run folder are the volume's subpaths", () => {
    let ref: ComputerRef;
    let inspected: { HostConfig: { Mounts: unknown[] }; Mounts: Array<Record<string, unknown>> };
    beforeAll(async () => {
      writeFileSync(path.join(folder, "outside.txt"), "from the provider's side\n");
      const made = await docker.create(spec());
      if (!made.ok) throw new Error(made.error.message);
      ref = made.value;
      inspected = JSON.parse((await engine.docker("inspect", ref.name)).stdout)[0];
    }, 120_000);

    it("mounts the daemon's tree read-only at /opt/agentrun and the run folder at /workspace, each a subpath with volume-nocopy, and binds nothing", async () => {
      const [tree] = (await readdir(path.join(root, "computer-cache"))).filter((n) => n.startsWith("daemon-"));
      expect(inspected.HostConfig.Mounts).toEqual([
        { Type: "volume", Source: volumeName, Target: "/opt/agentrun", ReadOnly: true, VolumeOptions: { NoCopy: true, Subpath: `computer-cache/${tree}` } },
        { Type: "volume", Source: volumeName, Target: "/workspace", VolumeOptions: { NoCopy: true, Subpath: "disk/agents/a1/runs/r1/work" } },
      ]);
      expect(mountsOf(inspected)).toEqual([
        ["volume", volumeName, "/opt/agentrun", false],
        ["volume", volumeName, "/workspace", true],
      ]);
      expect(ref.spec?.mount).toEqual({ kind: "bind", path: folder });
    });

    it("runs programs in the run folder and sees its files both ways", async () => {
      const connected = await docker.connect(ref);
      if (!connected.ok) throw new Error(connected.error.message);
      try {
        const client = connected.value.client;
        const ran = await client.call("exec.run", {
          argv: ["/bin/busybox", "sh", "-c", "cat outside.txt; /bin/busybox ls /opt/agentrun; echo from the computer > inside.txt"],
          cwd: "/workspace",
          timeoutMs: 10_000,
        });
        expect(text(ran.stdout)).toBe("from the provider's side\ncomputerd\negress\n");
        const read = await client.call("files.read", { path: "/workspace/inside.txt" });
        expect(text(read.data)).toBe("from the computer\n");
        // The tree is read-only inside: nothing the computer does changes the daemon others mount.
        const write = await client.call("exec.run", { argv: ["/bin/busybox", "touch", "/opt/agentrun/x"], timeoutMs: 10_000 });
        expect(write.exitCode).not.toBe(0);
      } finally {
        await connected.value.close();
      }
      expect(readFileSync(path.join(folder, "inside.txt"), "utf8")).toBe("from the computer\n");
    });

    it("reads back clean: attach, read and list give the run folder as the path below the root, with no drift", async () => {
      const read = await docker.read({ id: ref.name });
      if (!read.ok) throw new Error(read.error.message);
      expect(read.value.drift).toEqual([]);
      expect(read.value.ref.spec?.mount).toEqual({ kind: "bind", path: folder });
      const attached = await docker.attach({ id: ref.name });
      expect(attached.ok).toBe(true);
      const listed = await docker.list({ "agentrun.computer": "1" });
      expect(listed.ok && listed.value.find((c) => c.ref.name === ref.name)?.mount).toEqual({ kind: "bind", path: folder });
    });

    it("is released: the computer is gone and the volume's files stay", async () => {
      expect(await docker.release(ref, "delete")).toEqual({ ok: true, value: undefined });
      expect((await engine.docker("ps", "--all", "--quiet", "--filter", `name=${ref.name}`)).stdout).toBe("");
      expect(readFileSync(path.join(folder, "inside.txt"), "utf8")).toBe("from the computer\n");
    });
  });

  it("refuses a run folder outside the volume's root in words, before any docker run", async () => {
    const outside = mkdtempSync(path.join(tmpdir(), "agentrun-outside-"));
    try {
      const before = (await engine.docker("ps", "--all", "--quiet")).stdout;
      const result = await docker.create({ ...spec(), mount: { kind: "bind", path: outside } });
      expect(result).toMatchObject({ ok: false, error: { code: "invalid", field: "mount.path" } });
      if (!result.ok) expect(result.error.message).toContain(`the run folder ${outside} is not below the volume's root ${root}`);
      expect((await engine.docker("ps", "--all", "--quiet")).stdout).toBe(before);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("gives an allowlisted computer its egress volume on the tree's empty egress/, and reads it back clean", async () => {
    const made = await docker.create({ ...spec(), network: { allow: ["example.com"] } });
    if (!made.ok) throw new Error(made.error.message);
    try {
      const inspected = JSON.parse((await engine.docker("inspect", made.value.name)).stdout)[0] as { Mounts: Array<Record<string, unknown>> };
      expect(mountsOf(inspected)).toEqual([
        ["volume", volumeName, "/opt/agentrun", false],
        ["volume", `${made.value.name}-egress`, "/opt/agentrun/egress", false],
        ["volume", volumeName, "/workspace", true],
      ]);
      const read = await docker.read({ id: made.value.name });
      expect(read.ok && read.value.drift).toEqual([]);
      expect(read.ok && read.value.ref.spec?.network).toEqual({ allow: ["example.com"] });
    } finally {
      expect(await docker.release(made.value, "delete")).toEqual({ ok: true, value: undefined });
    }
  }, 120_000);
});
