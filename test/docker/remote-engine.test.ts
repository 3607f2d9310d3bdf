// A Docker engine on another host, reached over TCP with TLS verified both ways and over ssh:
// the test's own second dockerd (never the shared engine) listening on 127.0.0.1 with
// certificates made here, and an sshd of the test's own on 127.0.0.1 in front of it. Core passes
// through each, on the pinned base the provider pulls onto that engine from a registry of the
// test's own (the set-up's base pushed there under the pinned name's path); a wrong certificate, an unknown host key and a refused login are each refused in
// words with nothing made; what a remote engine changes (the daemon put in by archive, a bind
// only from the host's folders, an allowlist without the host's addresses) is said.
import { mkdtempSync, realpathSync } from "node:fs";
import { mkdir, readdir, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runConformance } from "../../src/conformance/runner.js";
import { formatReport } from "../../src/conformance/format.js";
import { create, driftedProvider } from "../../src/docker/create.js";
import { mountFor } from "../../src/docker/conformance/module.js";
import { type EngineAddress, engineAt, tlsIn } from "../../src/docker/engine.js";
import type { DockerProvider, DockerProviderOptions } from "../../src/docker/provider.js";
import { clientOf, makeCa } from "../support/engine-certs.js";
import { type RemoteEngine, startRemoteEngine } from "../support/remote-engine.js";
import type { SecondEngine } from "../support/second-engine.js";
import type { TestSshd } from "../support/sshd.js";
import { startRegistry, type TestRegistry } from "../support/registry.js";
import { toolchain } from "../support/toolchain.js";
import { packagedDaemon } from "../../src/docker/settings.js";

const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "agentrun-remote-")));
const spec = { lifetimeMs: 300_000, network: "none" as const, cpus: 0.5, memoryMb: 256, pids: 64 };

let engine: SecondEngine;
let sshd: TestSshd;
let client: string;

const ok = <T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T => {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};
const tcpEngine = (certs = client): EngineAddress => ok(engineAt(engine.tcp!, "the test's engine", { tls: tlsIn(certs) }));
const sshEngine = (ssh = sshd.ssh): EngineAddress => ok(engineAt(sshd.address, "the test's engine", { ssh }));
/**
 * The docker CLI a provider pulls with: over ssh the CLI runs `ssh` from PATH itself, so the
 * test's puts its own first, carrying the test's ssh config, as a user's ~/.ssh/config would.
 */
let dockerCli: string;
const options = (address: EngineAddress, more: Partial<DockerProviderOptions> = {}): DockerProviderOptions => ({
  daemonPath: packagedDaemon(),
  engine: address,
  daemonCache: path.join(dir, "cache"),
  base: pinned,
  docker: dockerCli,
  ...more,
});
/** Every container on the test's engine. */
const containers = async () => (await engine.docker("ps", "--all", "--quiet")).stdout.split("\n").filter(Boolean);

let remote: RemoteEngine | undefined;
let registry: TestRegistry | undefined;
/** The set-up's base in the test's registry, as a mirror's copy of the pinned base: the provider pulls it onto the engine. */
let pinned: string;
beforeAll(async () => {
  remote = await startRemoteEngine(dir);
  ({ engine, sshd, client } = remote);
  const bin = path.join(dir, "bin");
  await mkdir(bin, { recursive: true });
  await writeFile(path.join(bin, "ssh"), `#!/bin/sh\nexec /usr/bin/ssh ${sshd.ssh.slice(1).join(" ")} "$@"\n`, { mode: 0o755 });
  dockerCli = path.join(bin, "docker");
  await writeFile(dockerCli, `#!/bin/sh\nPATH="${bin}:$PATH" exec /usr/bin/docker "$@"\n`, { mode: 0o755 });
  registry = await startRegistry(path.join(dir, "registry"));
  pinned = await registry.push(toolchain().baseImage, "library/python", "3.12-slim");
}, 300_000);

afterAll(async () => {
  await registry?.stop();
  await remote?.dispose();
}, 120_000);

describe.each([
  ["TCP with TLS", () => tcpEngine()],
  ["ssh", () => sshEngine()],
])("a remote engine over %s", (_name, address) => {
  let provider: DockerProvider;
  let drifted: DockerProvider;
  beforeAll(() => {
    provider = create(options(address(), { hostFolders: [realpathSync(tmpdir())] }));
    drifted = driftedProvider(options(address(), { hostFolders: [realpathSync(tmpdir())] }));
  });
  afterAll(async () => {
    await provider?.engine.close();
    await drifted?.engine.close();
  });

  it("passes Core on the pinned base the provider pulled onto the engine, the daemon put in by archive and no path of this machine's bound", async () => {
    const base = ok(await provider.base());
    expect(base).toMatchObject({ image: pinned, from: "pinned" });
    const report = await runConformance(provider, {
      image: base.image,
      drifted,
      mountFor: (kind) => mountFor(kind),
    });
    expect(report.core, formatReport(report)).toBe("pass");
    expect(await containers()).toEqual([]);
  }, 900_000);

  it("makes a computer whose daemon is in its own files, bound from nowhere, and reads it back with no drift", async () => {
    const made = await provider.create({ ...spec, image: engine.image });
    const ref = ok(made);
    try {
      const inspected = JSON.parse((await engine.docker("inspect", ref.id)).stdout)[0];
      expect(inspected.HostConfig.Mounts ?? []).toEqual([]);
      expect(inspected.Mounts).toEqual([]);
      const read = ok(await provider.read({ id: ref.id }));
      expect(read.drift).toEqual([]);
      expect(read.hello?.version).toBe(provider.version);
    } finally {
      await provider.release(ref, "delete");
    }
  }, 120_000);

  it("refuses an allowlist without the host's addresses, and a bind from outside hostFolders, before anything is made", async () => {
    const allow = provider.check({ ...spec, image: engine.image, network: { allow: ["example.com"] } });
    expect(allow.ok).toBe(false);
    if (!allow.ok) expect(allow.error.message).toMatch(/another host's, and its addresses cannot be read from here.*egress\.hostAddresses/);
    const bind = provider.check({ ...spec, image: engine.image, mount: { kind: "bind", path: "/srv/elsewhere" } });
    expect(bind.ok).toBe(false);
    if (!bind.ok)
      expect(bind.error.message).toMatch(
        /bound from that host's disk, not this machine's; say the engine's host has it with agentrun:docker's engine\.hostFolders/,
      );
    expect(await containers()).toEqual([]);
  });
});

describe("an allowlisted computer on a remote engine, its host's addresses given", () => {
  it("gets a proxy on that engine refusing the given addresses alone, and reads back with no drift", async () => {
    const provider = create(options(tcpEngine(), { egress: { hostAddresses: ["10.9.8.7"] } }));
    try {
      const ref = ok(await provider.create({ ...spec, image: engine.image, network: { allow: ["example.com"] } }));
      try {
        const proxy = JSON.parse((await engine.docker("inspect", `${ref.name}-egress`)).stdout)[0];
        const args: string[] = proxy.Args;
        expect(args.flatMap((a, i) => (args[i - 1] === "--host-address" ? [a] : []))).toEqual(["10.9.8.7"]);
        const read = ok(await provider.read({ id: ref.id }));
        expect(read.drift).toEqual([]);
        expect(read.ref.spec?.network).toEqual({ allow: ["example.com"] });
      } finally {
        await provider.release(ref, "delete");
      }
      expect(await containers()).toEqual([]);
    } finally {
      await provider.engine.close();
    }
  }, 180_000);
});

describe("ssh's one login", () => {
  /** The mux folders in the temp directory now. */
  const muxFolders = async () => new Set((await readdir(tmpdir())).filter((f) => f.startsWith("agentrun-ssh-")));

  it("carries a provider's connections as sessions on one login, in a 0700 folder of its own, closed with the engine", async () => {
    const earlier = await muxFolders();
    const provider = create(options(sshEngine()));
    let ours: string[] = [];
    try {
      const ref = ok(await provider.create({ ...spec, image: engine.image }));
      try {
        const before = sshd.logins();
        for (let i = 0; i < 5; i++) {
          const connection = ok(await provider.connect(ref));
          try {
            // The engine's empty image holds the daemon alone.
            expect(await connection.client.call("exec.run", { argv: ["/opt/agentrun/computerd", "version"], timeoutMs: 10_000 })).toMatchObject({
              exitCode: 0,
            });
          } finally {
            await connection.close();
          }
        }
        expect(sshd.logins() - before).toBe(0);
        ours = [...(await muxFolders())].filter((f) => !earlier.has(f));
        expect(ours).toHaveLength(1);
        expect((await stat(path.join(tmpdir(), ours[0]!))).mode & 0o777).toBe(0o700);
        expect((await stat(path.join(tmpdir(), ours[0]!, "master"))).isSocket()).toBe(true);
      } finally {
        await provider.release(ref, "delete");
      }
    } finally {
      await provider.engine.close();
    }
    expect([...(await muxFolders())].filter((f) => ours.includes(f))).toEqual([]);
  }, 180_000);
});

describe("refused in words with nothing made", () => {
  const refused = async (address: EngineAddress, words: RegExp) => {
    const provider = create(options(address));
    try {
      const made = await provider.create({ ...spec, image: engine.image });
      expect(made.ok).toBe(false);
      if (!made.ok) {
        expect(made.error.code).toBe("unreachable");
        expect(made.error.message).toMatch(words);
      }
      expect(await containers()).toEqual([]);
    } finally {
      await provider.engine.close();
    }
  };

  it("a client certificate the engine's CA did not sign", async () => {
    await refused(tcpEngine(await clientOf(path.join(dir, "stranger"))), /Docker is not answering at tcp:\/\/127\.0\.0\.1:\d+ .*: .+/);
  }, 60_000);

  it("an engine certificate this client's CA did not sign", async () => {
    const other = path.join(dir, "other-ca");
    await makeCa(other);
    await execa("cp", [path.join(other, "ca.pem"), path.join(dir, "other-ca.pem")]);
    const wrongCa = { ca: path.join(dir, "other-ca.pem"), cert: path.join(client, "cert.pem"), key: path.join(client, "key.pem") };
    await refused(ok(engineAt(engine.tcp!, "the test's engine", { tls: wrongCa })), /unable to verify|self[- ]signed|certificate/i);
  }, 60_000);

  it("an ssh host key that known_hosts does not hold", async () => {
    await refused(sshEngine(sshd.unknownHost), /ssh to ssh:\/\/root@127\.0\.0\.1:\d+ exited 255: Host key verification failed\./);
  }, 60_000);

  it("a login the host refuses", async () => {
    await refused(sshEngine(sshd.refusedKey), /ssh to ssh:\/\/root@127\.0\.0\.1:\d+ exited 255: .*Permission denied \(publickey\)/);
  }, 60_000);

  it("plain TCP, before any connection", () => {
    const at = engineAt(engine.tcp!, "DOCKER_HOST");
    expect(at).toMatchObject({ ok: false, error: { code: "unsupported", field: "engine" } });
    if (!at.ok) expect(at.error.message).toMatch(/root on its host/);
  });
});
