// check(spec) on Docker: every refusal the spec lists, together, with no Docker call (the
// provider's docker CLI is a path that does not exist, so any call would fail the test).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { checkSpec } from "../../src/docker/check.js";
import { hostOf, type DockerInfo } from "../../src/docker/host.js";
import { planOf } from "../../src/docker/plan.js";
import { CAPABILITIES, DockerProvider } from "../../src/docker/provider.js";
import { kindOf, kindRefusals } from "../../src/contract/kinds.js";
import { PROVIDERS } from "../../src/registry/offers.js";
import type { ComputerSpec } from "../../src/contract/provider.js";
import type { Result } from "../../src/daemon/result.js";

const folder = mkdtempSync(path.join(tmpdir(), "agentrun-check-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));
// Taken for one on the Docker host (no container sign under the folder), so an allowlist needs no host addresses given.
const docker = new DockerProvider({ daemonPath: "/nonexistent/computerd", docker: "/nonexistent/docker", egress: { hostRoot: folder } });
const good: ComputerSpec = { image: "agentrun-base:x", lifetimeMs: 600_000, network: "none" };
const info = JSON.parse(readFileSync(new URL("../fixtures/docker/info-20.10.24.json", import.meta.url), "utf8")) as DockerInfo;

function refusals(spec: unknown): Array<[string, string]> {
  return refusalsOf(docker.check(spec as ComputerSpec));
}

function refusalsOf(checked: Result<unknown>): Array<[string, string]> {
  if (checked.ok) return [];
  return (checked.error.refusals ?? [{ field: checked.error.field ?? "", message: checked.error.message }]).map((r) => [r.field, r.message]);
}

describe("DockerProvider.check", () => {
  it("takes a plain spec, and one with every field", () => {
    expect(docker.check(good)).toEqual({ ok: true, value: { spec: good } });
    const every: ComputerSpec = {
      ...good,
      network: "open",
      cpus: 0.5,
      memoryMb: 512,
      pids: 64,
      user: "0",
      workdir: "/workspace",
      labels: { "agentrun.run": "r1" },
      mount: { kind: "bind", path: folder },
      kind: "linux",
    };
    expect(docker.check(every)).toEqual({ ok: true, value: { spec: every, user: { uid: 0, gid: 0 } } });
  });

  it("carries what it parsed: the user, and the allowlist in its normal form, which planOf then takes as it is", () => {
    const spec: ComputerSpec = { ...good, network: { allow: ["PyPI.org", "*.Example.com", "pypi.org"] }, user: "1234:5678" };
    const checked = docker.check(spec);
    expect(checked).toEqual({ ok: true, value: { spec, user: { uid: 1234, gid: 5678 }, allow: ["*.example.com", "pypi.org"] } });
    if (!checked.ok) return;
    const plan = planOf(checked.value, { name: "computer-000000000001", deadline: "2026-12-02T00:00:00.000Z", daemon: "/d", userDefault: { uid: 1, gid: 1 } });
    expect([plan.uid, plan.gid, plan.network, plan.allow]).toEqual([1234, 5678, "none", ["*.example.com", "pypi.org"]]);
  });

  it("takes a desktop, which this provider makes", () => {
    expect(docker.check({ ...good, kind: "desktop" })).toEqual({ ok: true, value: { spec: { ...good, kind: "desktop" } } });
  });

  it.each<[string, unknown, string, RegExp]>([
    ["no image", { ...good, image: "" }, "image", /image is required/],
    ["a NUL in the image", { ...good, image: "a\0b" }, "image", /NUL/],
    ["no lifetime", { ...good, lifetimeMs: undefined }, "lifetimeMs", /lifetimeMs is required/],
    ["a lifetime past 30 days", { ...good, lifetimeMs: 30 * 86_400_000 + 1 }, "lifetimeMs", /past this provider's cap of 2592000000 ms \(30 days\)/],
    ["a fractional lifetime", { ...good, lifetimeMs: 1.5 }, "lifetimeMs", /whole number/],
    ["an allowlist check refuses", { ...good, network: { allow: ["pypi.org:443"] } }, "network", /network.allow: "pypi.org:443" has a port/],
    [
      "an empty allowlist",
      { ...good, network: { allow: [] } },
      "network",
      /network.allow: an allowlist names at least one host or range; for no network, ask for none/,
    ],
    [
      "an allowlist with another field",
      { ...good, network: { allow: ["pypi.org"], ports: [22] } as never },
      "network",
      /an allowlist is \{ allow: \[\.\.\.\] \} and nothing else/,
    ],
    ["another network", { ...good, network: "host" }, "network", /network is none, open or an allowlist/],
    ["a phone", { ...good, kind: "android" }, "kind", /Docker makes linux, desktop and browser computers, not android/],
    ["a field Docker does not support", { ...good, gpu: true }, "gpu", /gpu is not a field Docker supports/],
    ["a user by name", { ...good, user: "agent" }, "user", /a name is refused: the computer's image may not have it/],
    ["cpus of zero", { ...good, cpus: 0 }, "cpus", /cpus is a number of CPUs/],
    ["memory below Docker's least", { ...good, memoryMb: 4 }, "memoryMb", /from 6/],
    ["no pids limit", { ...good, pids: 0 }, "pids", /0 or less would be no limit/],
    ["a relative workdir", { ...good, workdir: "work" }, "workdir", /absolute path/],
    ["a label of the provider's namespace", { ...good, labels: { "agentrun.computer.deadline": "x" } }, "labels", /provider's own namespace/],
    ["a label key with =", { ...good, labels: { "a=b": "c" } }, "labels", /no NUL, = or space/],
    ["a label with a NUL", { ...good, labels: { a: "b\0" } }, "labels", /no NUL/],
    [
      "an Archil mount",
      { ...good, mount: { kind: "archil", disk: "d", region: "r", folder: "f", token: "secret-token" } },
      "mount",
      /does not take a mount of kind archil; it takes bind/,
    ],
    ["a folder that is not there", { ...good, mount: { kind: "bind", path: `${folder}/missing` } }, "mount.path", /does not exist/],
    ["a folder that is not canonical", { ...good, mount: { kind: "bind", path: `${folder}/../${path.basename(folder)}` } }, "mount.path", /not canonical/],
  ])("refuses %s", (_what, spec, field, words) => {
    const got = refusals(spec);
    expect(got).toHaveLength(1);
    expect(got[0]![0]).toBe(field);
    expect(got[0]![1]).toMatch(words);
    expect(got[0]![1]).not.toContain("secret-token");
  });

  it("refuses a folder Docker's --mount cannot hold", () => {
    const odd = mkdtempSync(path.join(folder, "a,b"));
    expect(refusals({ ...good, mount: { kind: "bind", path: odd } })).toEqual([
      ["mount.path", "the run folder's path has a comma, a double quote or a line break, which a bind's options (Docker's --mount) cannot hold"],
    ]);
  });

  it("names every bad field together", () => {
    expect(refusals({ image: "", lifetimeMs: 0, network: "wide", user: "root" }).map(([f]) => f)).toEqual(["image", "lifetimeMs", "network", "user"]);
  });

  it("once the host is read, refuses with field host for each enforcement it lacks, a bind on a remapping host and the volume option on Engine 20", () => {
    const lacking = hostOf({ ...info, SwapLimit: false, SecurityOptions: ["name=seccomp,profile=default", "name=rootless"] });
    const got = checkSpec({ ...good, mount: { kind: "bind", path: folder } }, { capabilities: CAPABILITIES, host: lacking });
    expect(got.map((r) => r.field)).toEqual(["host", "host"]);
    expect(got[0]!.message).toBe("this Docker host does not enforce swap limits, so a computer could swap past its memory size");
    expect(got[1]!.message).toMatch(/^this Docker host remaps user ids \(rootless Docker\), so the run folder's owner on the host is not the computer's user/);
    expect(checkSpec(good, { capabilities: CAPABILITIES, host: lacking }).map((r) => r.field)).toEqual(["host"]);

    const old = checkSpec(good, { capabilities: CAPABILITIES, host: hostOf(info), volumeRoot: "/data" });
    expect(old).toEqual([
      {
        field: "host",
        message:
          "the volume option mounts subpaths of a volume (volume-subpath), which needs Docker Engine 26 or later; this Docker host runs Engine 20.10.24+dfsg1: upgrade it, or run the provider on the Docker host itself without the volume option",
      },
    ]);
    const { ServerVersion: _v, ...unversioned } = info;
    expect(checkSpec(good, { capabilities: CAPABILITIES, host: hostOf(unversioned), volumeRoot: "/data" })[0]!.message).toMatch(
      /runs an engine that reports no version/,
    );
  });
});

describe("DockerProvider's options", () => {
  it("once the host is read, refuses an allowlist on a host that remaps user ids", () => {
    const remapping = hostOf({ ...info, SecurityOptions: ["name=seccomp,profile=default", "name=userns"] });
    const got = checkSpec({ ...good, network: { allow: ["pypi.org"] } }, { capabilities: CAPABILITIES, host: remapping });
    expect(got).toEqual([
      {
        field: "host",
        message: expect.stringMatching(/^this Docker host remaps user ids \(userns\), so the egress volume's owner and the proxy's user are host ids/),
      },
    ]);
    expect(checkSpec({ ...good, network: { allow: ["pypi.org"] } }, { capabilities: CAPABILITIES, host: hostOf(info) })).toEqual([]);
  });

  it("refuses an allowlist at check when the Docker host's addresses cannot be named: in a container with none given", () => {
    const root = mkdtempSync(path.join(tmpdir(), "agentrun-check-container-"));
    writeFileSync(path.join(root, ".dockerenv"), "");
    const inContainer = new DockerProvider({ daemonPath: "/x", docker: "/nonexistent/docker", egress: { hostRoot: root } });
    expect(inContainer.check({ ...good, network: { allow: ["pypi.org"] } })).toMatchObject({
      ok: false,
      error: { refusals: [{ field: "host", message: expect.stringMatching(/runs in a container \(\/\.dockerenv is there\).*give egress\.hostAddresses/) }] },
    });
    expect(inContainer.proxies.check({ allow: ["pypi.org"], lifetimeMs: 600_000 })).toMatchObject({
      ok: false,
      error: { refusals: [{ field: "host", message: expect.stringMatching(/give egress\.hostAddresses/) }] },
    });
    expect(inContainer.check(good)).toEqual({ ok: true, value: { spec: good } });
    rmSync(root, { recursive: true, force: true });
  });

  it("refuses an allowlist at check, on the Docker host, when a given address is none of the host's and not public", () => {
    const stray = new DockerProvider({ daemonPath: "/x", docker: "/nonexistent/docker", egress: { hostRoot: folder, hostAddresses: ["10.99.0.1"] } });
    const words = /^egress\.hostAddresses holds 10\.99\.0\.1, which is none of this host's addresses.*ip -brief address/;
    expect(refusalsOf(stray.check({ ...good, network: { allow: ["pypi.org"] } }))).toEqual([["host", expect.stringMatching(words)]]);
    expect(refusalsOf(stray.proxies.check({ allow: ["pypi.org"], lifetimeMs: 600_000 }))).toEqual([["host", expect.stringMatching(words)]]);
    expect(stray.check(good)).toEqual({ ok: true, value: { spec: good } });
  });

  it("takes a listed CIDR in the test network's range only with the test-only seam", () => {
    const spec = { ...good, network: { allow: ["10.213.0.0/24"] } };
    expect(checkSpec(spec, { capabilities: CAPABILITIES })).toEqual([
      { field: "network", message: expect.stringMatching(/is over 10\.0\.0\.0\/8, a private range/) },
    ]);
    expect(checkSpec(spec, { capabilities: CAPABILITIES, testNetwork: "10.213.0.0/24" })).toEqual([]);
    expect(() => new DockerProvider({ daemonPath: "/x", egress: { testNetwork: { name: "n", range: "10.213.0.0/24" } } })).toThrow(
      /a test network is a test-only setting/,
    );
    expect(() => new DockerProvider({ daemonPath: "/x", egress: { testNetwork: { name: "n", range: "8.8.8.0/24" }, testOnly: true } })).toThrow(
      /not a private or loopback range/,
    );
    const seam = { name: "n", range: "10.213.0.0/24" };
    expect(() => new DockerProvider({ daemonPath: "/x", egress: { testNetwork: { ...seam, upstreamRoot: "not pem" }, testOnly: true } })).toThrow(
      /testNetwork.upstreamRoot is one PEM certificate/,
    );
    const root = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";
    expect(() => new DockerProvider({ daemonPath: "/x", egress: { testNetwork: { ...seam, upstreamRoot: root }, testOnly: true } })).not.toThrow();
    expect(() => new DockerProvider({ daemonPath: "/x", egress: { hint: "bad\n" } })).toThrow(/printable ASCII/);
  });

  it("refuses root and root's group for the provider's user, and a name", () => {
    expect(() => new DockerProvider({ daemonPath: "x", user: "1000:0" })).toThrow(/root or in root's group; only a spec may ask for that/);
    expect(() => new DockerProvider({ daemonPath: "x", user: "0" })).toThrow(/root/);
    expect(() => new DockerProvider({ daemonPath: "x", user: "agent" })).toThrow(/uid or uid:gid in numbers/);
    expect(() => new DockerProvider({ daemonPath: "" })).toThrow(/needs daemonPath/);
  });

  it("refuses an image source that is neither a recipe nor an image name", () => {
    expect(() => new DockerProvider({ daemonPath: "x", image: { recipe: "RUN true" } })).toThrow(/a recipe is a Dockerfile with a FROM line/);
    expect(() => new DockerProvider({ daemonPath: "x", image: { image: "Not An Image" } })).toThrow(/is not an image name/);
  });

  it("refuses a daemon cache outside the volume's root", () => {
    expect(() => new DockerProvider({ daemonPath: "x", daemonCache: "/elsewhere", volume: { name: "v", root: "/data" } })).toThrow(
      /daemonCache \/elsewhere is not at or below the volume's root \/data/,
    );
    expect(() => new DockerProvider({ daemonPath: "x", daemonCache: "/data/cache", volume: { name: "v", root: "/data" } })).not.toThrow();
  });

  it("declares linux, pid1, the three groups, 30 days, the janitor, stop and delete, and bind", () => {
    expect(docker.capabilities()).toMatchObject({
      kind: "linux",
      daemon: "pid1",
      groups: ["exec", "files", "processes"],
      maxLifetimeMs: 2_592_000_000,
      lifetime: "janitor",
      release: ["stop", "delete"],
      stopDeletes: false,
      mount: ["bind"],
    });
    expect(kindRefusals(docker.capabilities())).toEqual([]);
    expect(kindOf(docker.capabilities())).toBe("sandbox");
    const entry = PROVIDERS.find((p) => p.id === "docker");
    expect(entry?.capabilities).toContainEqual({ kind: CAPABILITIES.kind, groups: CAPABILITIES.groups });
    expect(entry?.mounts).toEqual(CAPABILITIES.mount);
    expect("extend" in docker).toBe(false);
    expect("stream" in docker).toBe(false);
  });

  it("create refuses what check refuses, before any Docker call", async () => {
    const made = await docker.create({ ...good, network: { allow: ["pypi.org/simple"] } });
    expect(made).toMatchObject({ ok: false, error: { code: "invalid", field: "network" } });
  });
});

describe("DockerProvider.create before Docker is asked (the one flow's check step)", () => {
  it("says an aborted create's words before anything was made", async () => {
    const aborted = await docker.create(good, { signal: AbortSignal.abort() });
    expect(aborted).toEqual({ ok: false, error: { code: "aborted", message: "create was aborted before anything was made" } });
  });
});
