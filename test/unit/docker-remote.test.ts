// What an engine on another host changes, with no engine: check refuses an allowlist without the
// host's addresses and a bind from outside hostFolders (reading nothing of this machine's disk for
// it); the create request binds no daemon; the CLI and ssh are given the engine as the docker
// CLI's own flags and helper would be.
import { describe, expect, it } from "vitest";
import { engineArgs } from "../../src/docker/cli.js";
import { createRequest } from "../../src/docker/create-request.js";
import { engineAt, type EngineAddress } from "../../src/docker/engine.js";
import { planOf } from "../../src/docker/plan.js";
import { DockerProvider } from "../../src/docker/provider.js";
import { daemonFile } from "../../src/docker/remote.js";
import { dialArgv, MUX_PERSIST_S } from "../../src/docker/ssh-dial.js";
import { firstEntryOf, tarOf } from "../../src/kits/image/tar.js";
import { hostAddresses } from "../../src/egress/host-addresses.js";

const ssh = (() => {
  const at = engineAt("ssh://deploy@fleet-1:2222", "the test", { ssh: ["ssh", "-F", "/c"] });
  if (!at.ok) throw new Error(at.error.message);
  return at.value;
})();
const spec = { image: "img", lifetimeMs: 60_000, network: "none" as const };
const provider = (engine: EngineAddress, more: { hostFolders?: string[]; egress?: { hostAddresses: string[] } } = {}) =>
  new DockerProvider({ daemonPath: "/nonexistent/computerd", engine, user: "1000:1000", ...more });

describe("check on a remote engine", () => {
  it("refuses an allowlist unless egress.hostAddresses names the host's addresses", () => {
    const refused = provider(ssh).check({ ...spec, network: { allow: ["example.com"] } });
    expect(refused).toMatchObject({ ok: false, error: { field: "network" } });
    if (!refused.ok)
      expect(refused.error.message).toMatch(
        /the Docker engine is ssh:\/\/deploy@fleet-1:2222 \(from the test\), another host's, and its addresses cannot be read from here/,
      );
    expect(provider(ssh, { egress: { hostAddresses: ["203.0.113.7"] } }).check({ ...spec, network: { allow: ["example.com"] } }).ok).toBe(true);
  });

  it("refuses a bind outside hostFolders, and takes one below them without reading this machine's disk", () => {
    const refused = provider(ssh).check({ ...spec, mount: { kind: "bind", path: "/srv/runs/r1" } });
    expect(refused).toMatchObject({ ok: false, error: { field: "mount.path" } });
    if (!refused.ok)
      expect(refused.error.message).toMatch(
        /bound from that host's disk, not this machine's; say the engine's host has it with agentrun:docker's engine\.hostFolders/,
      );
    // /srv/runs is on no disk here; on the engine's host it is named.
    expect(provider(ssh, { hostFolders: ["/srv/runs"] }).check({ ...spec, mount: { kind: "bind", path: "/srv/runs/r1" } }).ok).toBe(true);
    expect(provider(ssh, { hostFolders: ["/srv/runs"] }).check({ ...spec, mount: { kind: "bind", path: "/srv/runsx/r1" } }).ok).toBe(false);
    expect(provider(ssh, { hostFolders: ["/srv/runs"] }).check({ ...spec, mount: { kind: "bind", path: "/srv/runs/../etc" } }).ok).toBe(false);
  });

  it("is as before on a local socket: a bind's folder must be on this machine's disk", () => {
    const local = provider({ address: "unix:///var/run/docker.sock", socket: "/var/run/docker.sock", from: "the test" });
    expect(local.check({ ...spec, mount: { kind: "bind", path: "/srv/runs/r1" } })).toMatchObject({ ok: false, error: { field: "mount.path" } });
    expect(() => provider(ssh, { hostFolders: ["relative"] })).toThrow(/hostFolders option is a list of absolute paths/);
  });
});

describe("the daemon on a remote engine", () => {
  it("is bound from nowhere: the create request has no mount for it", () => {
    const at = { name: "computer-000000000001", deadline: "2026-12-02T00:00:00.000Z", userDefault: { uid: 1, gid: 1 } };
    const checked = { spec: { ...spec } };
    expect(createRequest(planOf(checked, { ...at, daemon: undefined })).body.HostConfig.Mounts).toEqual([]);
    expect(createRequest(planOf(checked, { ...at, daemon: "/d" })).body.HostConfig.Mounts).toMatchObject([{ Type: "bind", Source: "/d" }]);
  });

  it("goes in as an archive of /opt/agentrun/computerd, 0755", () => {
    const tar = tarOf([daemonFile(Buffer.from("binary"))]);
    expect(tar.subarray(0, 22).toString()).toBe("opt/agentrun/computerd");
    expect(tar.subarray(100, 107).toString()).toBe("0000755");
    expect(firstEntryOf(tar)).toEqual({ bytes: Buffer.from("binary") });
  });
});

describe("an engine as the docker CLI and its ssh helper are given it", () => {
  it("gives the CLI the address, and for TCP the TLS files, verified", () => {
    expect(engineArgs(ssh)).toEqual(["--host", "ssh://deploy@fleet-1:2222"]);
    const tcp: EngineAddress = {
      kind: "tcp",
      address: "tcp://h:2376",
      host: "h",
      port: 2376,
      tls: { ca: "/c/ca.pem", cert: "/c/cert.pem", key: "/c/key.pem" },
      from: "x",
    };
    expect(engineArgs(tcp)).toEqual([
      "--host",
      "tcp://h:2376",
      "--tlsverify",
      "--tlscacert",
      "/c/ca.pem",
      "--tlscert",
      "/c/cert.pem",
      "--tlskey",
      "/c/key.pem",
    ]);
  });

  it("runs ssh as the CLI's helper does, never asking on a terminal", () => {
    expect(dialArgv(ssh as Extract<EngineAddress, { kind: "ssh" }>)).toEqual([
      "ssh",
      "-F",
      "/c",
      "-T",
      "-o",
      "BatchMode=yes",
      "-o",
      "ConnectTimeout=30",
      "-l",
      "deploy",
      "-p",
      "2222",
      "--",
      "fleet-1",
      "docker",
      "system",
      "dial-stdio",
    ]);
  });

  it("refuses an allowlist's host addresses from this machine's interfaces alone", () => {
    const refused = hostAddresses({ elsewhere: "the Docker engine is ssh://x, another host's", hostRoot: "/nonexistent" });
    expect(refused).toMatchObject({ ok: false, error: { code: "unsupported", field: "network" } });
    if (!refused.ok)
      expect(refused.error.message).toMatch(/and the Docker engine is ssh:\/\/x, another host's, so this machine's interfaces are not the host's/);
    // The host's own, given, are taken even though no interface here has them.
    expect(hostAddresses({ elsewhere: "x", hostRoot: "/nonexistent", hostAddresses: ["10.0.0.5"], interfaces: {} })).toEqual({ ok: true, value: ["10.0.0.5"] });
  });

  it("gives a remote engine's proxy the given host addresses alone, never this machine's interfaces", () => {
    const eth0 = {
      address: "93.184.215.14",
      netmask: "255.255.255.0",
      family: "IPv4",
      mac: "02:00:00:00:00:01",
      internal: false,
      cidr: "93.184.215.14/24",
    } as const;
    const interfaces = { eth0: [eth0] };
    // On the Docker host itself, its public interface address is refused.
    expect(hostAddresses({ hostRoot: "/nonexistent", interfaces })).toEqual({ ok: true, value: ["93.184.215.14"] });
    expect(hostAddresses({ elsewhere: "x", hostRoot: "/nonexistent", hostAddresses: ["203.0.113.7", "10.0.0.5"], interfaces })).toEqual({
      ok: true,
      value: ["10.0.0.5", "203.0.113.7"],
    });
  });

  it("shares one ssh login among an engine's connections, in the mux's own folder", () => {
    expect(dialArgv(ssh as Extract<EngineAddress, { kind: "ssh" }>, "/tmp/agentrun-ssh-x/master")).toEqual([
      "ssh",
      "-F",
      "/c",
      "-T",
      "-o",
      "BatchMode=yes",
      "-o",
      "ConnectTimeout=30",
      "-o",
      "ControlMaster=auto",
      "-o",
      "ControlPath=/tmp/agentrun-ssh-x/master",
      "-o",
      `ControlPersist=${MUX_PERSIST_S}`,
      "-l",
      "deploy",
      "-p",
      "2222",
      "--",
      "fleet-1",
      "docker",
      "system",
      "dial-stdio",
    ]);
  });
});
