// The drift check on docker inspect of computers made on this engine (test/fixtures/docker,
// recorded by record.mjs with the provider's own run flags), field by field.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { drift, type DriftExpected, helloDrift, inspectDrift, readBackDrift } from "../../src/docker/drift.js";
import { CAPABILITIES } from "../../src/docker/provider.js";
import type { Inspected } from "../../src/docker/readback.js";
import type { Hello } from "../../src/daemon/protocol.js";
import type { ComputerSpec } from "../../src/contract/provider.js";

interface Fixture {
  spec: ComputerSpec;
  daemon: string;
  deadline: string;
  inspected: Inspected;
}

function fixture(name: string): Fixture {
  return JSON.parse(readFileSync(new URL(`../fixtures/docker/${name}.json`, import.meta.url), "utf8")) as Fixture;
}

function expectedOf(f: Fixture, user = "1000:1000"): DriftExpected {
  return {
    user,
    daemon: f.daemon,
    deadline: f.deadline,
    version: "0.1.0",
    groups: ["exec", "files", "processes"],
    kind: "linux",
    arch: "amd64",
    host: { apparmor: false, selinux: false },
  };
}

const hello: Hello = { version: "0.1.0", os: "linux", kind: "linux", arch: "amd64", groups: ["files", "exec", "processes"] };

/** A deep copy with one change made by hand, as a later Docker or an operator might. */
function changed(f: Fixture, edit: (i: Inspected & { HostConfig: Record<string, unknown>; Config: Record<string, unknown> }) => void): Inspected {
  const copy = structuredClone(f.inspected) as Inspected & { HostConfig: Record<string, unknown>; Config: Record<string, unknown> };
  edit(copy);
  return copy;
}

describe("a desktop's drift: its DISPLAY, its kind label and its groups", () => {
  const f = fixture("inspect-none");
  const desktop: DriftExpected = {
    ...expectedOf(f),
    kind: "desktop",
    groups: ["exec", "files", "processes", "screen", "input.pointer", "input.keys"],
    display: ":0",
  };
  const asDesktop = changed(f, (i) => {
    i.Config.Env = [...(i.Config.Env as string[]), "DISPLAY=:0"];
    i.Config.Labels = { ...(i.Config.Labels as Record<string, string>), "agentrun.computer.kind": "desktop" };
  });

  it("finds nothing on a desktop made as one", () => {
    expect(inspectDrift(f.spec, asDesktop, desktop)).toEqual([]);
    expect(readBackDrift(asDesktop, CAPABILITIES).kind).toBe("desktop");
  });

  it("names a desktop with no DISPLAY or no kind label, and a linux computer given either", () => {
    expect(inspectDrift(f.spec, f.inspected, desktop)).toEqual([
      'Config.Env holds [], not ["DISPLAY=:0"]',
      'Config.Labels agentrun.computer.kind is absent, not "desktop"',
    ]);
    expect(inspectDrift(f.spec, asDesktop, expectedOf(f))).toEqual([
      'Config.Env holds ["DISPLAY=:0"], not no DISPLAY (it is not a desktop)',
      "Config.Labels holds agentrun.computer.kind, which the provider never writes",
    ]);
  });

  it("names a desktop whose display went: hello reads back kind linux with the linux groups", () => {
    expect(helloDrift(hello, desktop)).toEqual([
      "the daemon's kind is linux, not desktop",
      'the daemon\'s groups are ["files","exec","processes"], not ["exec","files","processes","screen","input.pointer","input.keys"]',
    ]);
  });
});

describe("drift on computers made here", () => {
  it("finds nothing on a computer with network none and every default", () => {
    const f = fixture("inspect-none");
    expect(drift(f.spec, f.inspected, hello, expectedOf(f))).toEqual([]);
  });

  it("finds nothing on an open computer with its own sizes, root, a workdir, labels and a bind", () => {
    const f = fixture("inspect-open-bind");
    expect(drift(f.spec, f.inspected, hello, expectedOf(f, "0:0"))).toEqual([]);
  });

  it("names the memory and swap a docker update changed, read back too, never /work's size that follows them", () => {
    const f = fixture("inspect-hand-memory");
    expect(inspectDrift(f.spec, f.inspected, expectedOf(f))).toEqual([
      "HostConfig.Memory is 1073741824 bytes, not 4294967296 (4096 MiB)",
      "HostConfig.MemorySwap is 1073741824 bytes, not 4294967296 (4096 MiB)",
    ]);
    // attach reads the sizes back from the computer: the memory it was made with is /work's size's
    const readBack = { ...f.spec, memoryMb: 1024 };
    expect(inspectDrift(readBack, f.inspected, expectedOf(f))).toEqual([
      "HostConfig.Memory is 1024 MiB, not the 4096 MiB the computer was made with (/work's tmpfs is sized for it)",
      "HostConfig.MemorySwap is 1073741824 bytes, not 4294967296 (4096 MiB)",
    ]);
  });

  it("names the memory alone when a docker update left the swap as made", () => {
    const f = fixture("inspect-hand-memory");
    const inspected = structuredClone(f.inspected);
    (inspected.HostConfig as Record<string, unknown>).MemorySwap = 4096 * 1024 * 1024;
    expect(inspectDrift({ ...f.spec, memoryMb: 1024 }, inspected, expectedOf(f))).toEqual([
      "HostConfig.Memory is 1024 MiB, not the 4096 MiB the computer was made with (/work's tmpfs is sized for it)",
    ]);
  });

  it("names a restart policy added by hand", () => {
    const f = fixture("inspect-hand-restart");
    expect(inspectDrift(f.spec, f.inspected, expectedOf(f))).toEqual([
      'HostConfig.RestartPolicy is {"Name":"always","MaximumRetryCount":0}, not {"Name":"no"}: a restart policy would bring a computer back after its deadline',
    ]);
  });

  it("names a none computer that is also on the bridge", () => {
    const f = fixture("inspect-none");
    const bridged = changed(f, (i) => {
      i.NetworkSettings = { Networks: { ...(i.NetworkSettings?.Networks ?? {}), bridge: {} } };
    });
    expect(inspectDrift(f.spec, bridged, expectedOf(f))).toEqual(['the network reads back as other (network mode none, but on bridge, none), not "none"']);
  });

  const f = fixture("inspect-none");
  const cases: Array<[string, (i: Inspected & { HostConfig: Record<string, unknown>; Config: Record<string, unknown> }) => void, string]> = [
    ["a capability added", (i) => (i.HostConfig.CapAdd = ["NET_RAW"]), 'HostConfig.CapAdd is ["NET_RAW"]: no capability may be added'],
    ["capabilities kept", (i) => (i.HostConfig.CapDrop = ["NET_RAW"]), 'HostConfig.CapDrop is ["NET_RAW"], not ["ALL"]'],
    ["privileged", (i) => (i.HostConfig.Privileged = true), "HostConfig.Privileged is true, not false"],
    [
      "seccomp off",
      (i) => (i.HostConfig.SecurityOpt = ["no-new-privileges", "seccomp=unconfined"]),
      'HostConfig.SecurityOpt is ["no-new-privileges","seccomp=unconfined"], not exactly ["no-new-privileges"]',
    ],
    ["IPC shared", (i) => (i.HostConfig.IpcMode = "shareable"), 'HostConfig.IpcMode is "shareable", not "private"'],
    ["the host's cgroup namespace", (i) => (i.HostConfig.CgroupnsMode = "host"), 'HostConfig.CgroupnsMode is "host", not "private"'],
    ["another runtime", (i) => (i.HostConfig.Runtime = "runsc"), 'runtime: HostConfig.Runtime is "runsc", not "runc" (runc)'],
    [
      "a masked path unmasked",
      (i) => (i.HostConfig.MaskedPaths = (i.HostConfig.MaskedPaths as string[]).filter((p) => p !== "/proc/kcore")),
      "HostConfig.MaskedPaths lacks /proc/kcore, which Docker holds for every container",
    ],
    ["pids", (i) => (i.HostConfig.PidsLimit = 0), "HostConfig.PidsLimit is 0, not 1024"],
    ["CPU quota", (i) => (i.HostConfig.CpuQuota = 400000), "HostConfig.CpuQuota is 400000, not 200000 (2 CPUs)"],
    ["CPU period", (i) => (i.HostConfig.CpuPeriod = 50000), "HostConfig.CpuPeriod is 50000, not 100000"],
    [
      "a tmpfs option",
      (i) => ((i.HostConfig.Tmpfs as Record<string, string>)["/run/agentrun"] = "uid=1000,gid=1000,mode=0700,exec,nosuid,nodev,size=1m"),
      'HostConfig.Tmpfs /run/agentrun is "uid=1000,gid=1000,mode=0700,exec,nosuid,nodev,size=1m", not "uid=1000,gid=1000,mode=0700,noexec,nosuid,nodev,size=1m" (in any order)',
    ],
    ["another tmpfs", (i) => ((i.HostConfig.Tmpfs as Record<string, string>)["/tmp"] = "size=1m"), "HostConfig.Tmpfs has another tmpfs at /tmp"],
    [
      "a bind of the docker socket",
      (i) => (i.HostConfig.Binds = ["/var/run/docker.sock:/var/run/docker.sock"]),
      'HostConfig.Binds is ["/var/run/docker.sock:/var/run/docker.sock"], and must be empty',
    ],
    ["the host's pid namespace", (i) => (i.HostConfig.PidMode = "host"), 'HostConfig.PidMode is "host", and must be empty'],
    ["a device", (i) => (i.HostConfig.Devices = [{ PathOnHost: "/dev/kvm" }]), 'HostConfig.Devices is [{"PathOnHost":"/dev/kvm"}], and must be empty'],
    ["a field a later Docker adds", (i) => (i.HostConfig.HostGPU = "all"), 'HostConfig.HostGPU is "all", and must be empty'],
    ["root", (i) => (i.Config.User = "0:0"), 'Config.User is "0:0", not "1000:1000"'],
    ["another image", (i) => (i.Config.Image = "alpine"), 'Config.Image is "alpine", not "agentrun-base:f46053ab1cd8"'],
    ["another home", (i) => (i.Config.Env = ["HOME=/root", "HOME=/work"]), 'Config.Env holds ["HOME=/root","HOME=/work"], not one HOME=/work'],
    ["another entrypoint", (i) => (i.Config.Entrypoint = ["/bin/sh"]), 'Config.Entrypoint is ["/bin/sh"], not ["/opt/agentrun/computerd"]'],
    [
      "another deadline",
      (i) => (i.Config.Cmd = ["init", "--deadline", "2030-01-01T00:00:00.000Z"]),
      'Config.Cmd is ["init","--deadline","2030-01-01T00:00:00.000Z"], not ["init","--deadline","2026-11-29T21:15:00.000Z"]',
    ],
    ["an image VOLUME", (i) => (i.Config.Volumes = { "/data": {} }), 'Config.Volumes is {"/data":{}}, and must be empty'],
    [
      "a label of the provider's namespace",
      (i) => ((i.Config.Labels as Record<string, string>)["agentrun.computer.egress"] = "x"),
      "Config.Labels holds agentrun.computer.egress, which the provider never writes",
    ],
    ["an AppArmor profile off", (i) => (i.AppArmorProfile = "unconfined"), 'AppArmorProfile is "unconfined", not ""'],
  ];
  it.each(cases)("names %s", (_what, edit, sentence) => {
    expect(inspectDrift(f.spec, changed(f, edit), expectedOf(f))).toEqual([sentence]);
  });

  it("takes the recipe label an image built by ensureImage carries as the image's own", () => {
    const built = changed(f, (i) => ((i.Config.Labels as Record<string, string>)["agentrun.computer.recipe"] = "0".repeat(64)));
    expect(inspectDrift(f.spec, built, expectedOf(f))).toEqual([]);
  });

  it("names a second mount and an image's volume in both halves of the report", () => {
    const out = inspectDrift(
      f.spec,
      changed(f, (i) => {
        i.Mounts = [
          ...(i.Mounts ?? []),
          { Type: "volume", Name: "v", Source: "/var/lib/docker/volumes/v/_data", Destination: "/data", RW: true, Propagation: "" },
        ];
      }),
      expectedOf(f),
    );
    expect(out).toEqual(["Mounts holds another mount: a volume at /data (an image's VOLUME is drift too)"]);
  });

  it("names a daemon bound from another copy, and a run folder bound read-only", () => {
    const g = fixture("inspect-open-bind");
    const out = inspectDrift(g.spec, g.inspected, { ...expectedOf(g, "0:0"), daemon: "/elsewhere/computerd" });
    expect(out).toHaveLength(2);
    expect(out[0]).toMatch(/^HostConfig.Mounts does not hold the daemon at \/opt\/agentrun\/computerd as one read-only bind of \/elsewhere\/computerd/);
    const ro = changed(g, (i) => {
      for (const m of i.Mounts ?? []) if (m.Destination === "/workspace") m.RW = false;
    });
    expect(inspectDrift(g.spec, ro, expectedOf(g, "0:0"))[0]).toMatch(/^Mounts does not hold the run folder at \/workspace as one read-write bind/);
  });

  it("expects docker-default and container_t where the host has AppArmor and SELinux", () => {
    const out = inspectDrift(f.spec, f.inspected, { ...expectedOf(f), host: { apparmor: true, selinux: true } });
    expect(out).toEqual(['AppArmorProfile is "", not "docker-default"', 'ProcessLabel is "", not of type container_t']);
  });
});

describe("the hello half", () => {
  const e = expectedOf(fixture("inspect-none"));
  it.each([
    ["another version", { ...hello, version: "0.0.9" }, "the daemon is version 0.0.9, not the provider's 0.1.0"],
    ["another kind", { ...hello, kind: "desktop" as const }, "the daemon's kind is desktop, not linux"],
    [
      "one group more",
      { ...hello, groups: ["exec", "files", "processes", "screen"] },
      'the daemon\'s groups are ["exec","files","processes","screen"], not ["exec","files","processes"]',
    ],
    ["one group fewer", { ...hello, groups: ["exec", "files"] }, 'the daemon\'s groups are ["exec","files"], not ["exec","files","processes"]'],
    ["another arch", { ...hello, arch: "arm64" }, "the daemon's arch is arm64, not the Docker host's amd64"],
    ["another os", { ...hello, os: "windows" }, "the daemon's os is windows, not linux"],
  ])("names %s", (_what, h, sentence) => {
    expect(helloDrift(h, e)).toEqual([sentence]);
  });
});

describe("the read-back half (attach and read)", () => {
  const f = fixture("inspect-none");

  it("reads the spec back from a computer as made, with nothing to say", () => {
    const held = readBackDrift(f.inspected, CAPABILITIES);
    expect(held).toMatchObject({ uid: 1000, gid: 1000, deadline: f.deadline, mismatches: [] });
    expect(held.spec).toMatchObject({ image: f.spec.image, network: "none", cpus: 2, memoryMb: 4096, pids: 1024, user: "1000:1000", workdir: "/work" });
    // What it read back is what it was made as: the inspect half then finds nothing either.
    expect(inspectDrift(held.spec, f.inspected, expectedOf(f))).toEqual([]);
  });

  it("names a computer renamed by hand", () => {
    const renamed = changed(f, (i) => (i.Name = "/mine-now"));
    expect(readBackDrift(renamed, CAPABILITIES).mismatches).toEqual([
      "its name mine-now is not one create gives (computer-<12 hex digits>, or pool-<12 hex digits> for a warm pool's ready computer)",
    ]);
  });

  it("names a deadline label missing, or not the time create writes, and a user that is not uid:gid", () => {
    const noDeadline = changed(f, (i) => (i.Config.Labels = { "agentrun.computer": "1" }));
    expect(readBackDrift(noDeadline, CAPABILITIES).mismatches).toEqual([
      "the agentrun.computer.deadline label is missing, not the ISO time create writes, at most 30 days away",
    ]);
    const byName = changed(f, (i) => (i.Config.User = "agent"));
    expect(readBackDrift(byName, CAPABILITIES).mismatches).toEqual([
      "read back, user is a uid or uid:gid in numbers, such as 1000:1000 (a name is refused: the computer's image may not have it)",
      'Config.User is "agent", not uid:gid as create writes it',
    ]);
  });
});

describe("an allowlisted computer", () => {
  const f = fixture("inspect-none");
  const name = f.inspected.Name.replace(/^\//, "");
  const spec: ComputerSpec = { ...f.spec, network: { allow: ["pypi.org", "93.184.215.0/24"] } };
  const proxy = { allow: ["pypi.org", "93.184.215.0/24"] };
  /** The none fixture with what create adds for an allowlist: the egress volume read-only and init's relay. */
  const allowlisted = (edit: (i: Inspected & { HostConfig: Record<string, unknown>; Config: Record<string, unknown> }) => void = () => {}) =>
    changed(f, (i) => {
      (i.HostConfig.Mounts as unknown[]).push({ Type: "volume", Source: `${name}-egress`, Target: "/opt/agentrun/egress", ReadOnly: true });
      i.Mounts!.push({
        Type: "volume",
        Name: `${name}-egress`,
        Source: "/var/lib/docker/volumes/x/_data",
        Destination: "/opt/agentrun/egress",
        Driver: "local",
        Mode: "",
        RW: false,
        Propagation: "",
      });
      i.Config.Cmd = [...(i.Config.Cmd as string[]), "--egress", "/opt/agentrun/egress/egress.sock"];
      edit(i);
    });

  it("finds nothing when its volume, relay and proxy are as create makes them, the list in any order and case", () => {
    expect(drift({ ...spec, network: { allow: ["93.184.215.0/24", "PyPI.org"] } }, allowlisted(), hello, { ...expectedOf(f), proxy })).toEqual([]);
  });

  it("names a proxy that reads back as other, or with another list", () => {
    const other = { other: "network allow, but its egress proxy x is not running (a crashed proxy is not restarted: make a new computer)" };
    expect(drift(spec, allowlisted(), hello, { ...expectedOf(f), proxy: other })).toEqual([
      `the network reads back as other (${other.other}), not {"allow":["pypi.org","93.184.215.0/24"]}`,
    ]);
    expect(drift(spec, allowlisted(), hello, { ...expectedOf(f), proxy: { allow: ["pypi.org", "evil.example"] } })).toEqual([
      'the network reads back as {"allow":["pypi.org","evil.example"]}, not {"allow":["pypi.org","93.184.215.0/24"]}',
    ]);
  });

  it("names an egress volume made writable, and a relay taken out of init's command", () => {
    const writable = allowlisted((i) => (i.Mounts!.find((m) => m.Destination === "/opt/agentrun/egress")!.RW = true));
    expect(drift(spec, writable, hello, { ...expectedOf(f), proxy })).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/network allow, but the computer does not mount its egress volume .* read-only/),
        expect.stringMatching(/^Mounts does not hold the egress volume/),
      ]),
    );
    const unrelayed = allowlisted((i) => (i.Config.Cmd = ["init", "--deadline", f.deadline]));
    expect(drift(spec, unrelayed, hello, { ...expectedOf(f), proxy })).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/network allow, but init does not relay to \/opt\/agentrun\/egress\/egress.sock/),
        expect.stringMatching(/^Config.Cmd is/),
      ]),
    );
  });

  it("holds a computer joined to a shared proxy to its own side, whatever the proxy's state", () => {
    // A joined computer whose proxy is stopped or gone is read with { allow: [] } (provider.ts
    // #heldProxyReadBack): the proxy's drift is its EgressProxy's; the computer's own is still named.
    const shared = "proxy-0123456789ab";
    const joinedSpec: ComputerSpec = { ...f.spec, network: { allow: [] }, egress: shared };
    const joined = (edit: Parameters<typeof allowlisted>[0] = () => {}) =>
      allowlisted((i) => {
        (i.HostConfig.Mounts as { Source: string }[]).at(-1)!.Source = `${shared}-egress`;
        i.Mounts!.at(-1)!.Name = `${shared}-egress`;
        edit(i);
      });
    expect(drift(joinedSpec, joined(), hello, { ...expectedOf(f), proxy: { allow: [] } })).toEqual([]);
    const bridged = joined((i) => ((i.HostConfig.NetworkMode = "bridge"), (i.NetworkSettings!.Networks = { bridge: {} })));
    expect(drift(joinedSpec, bridged, hello, { ...expectedOf(f), proxy: { allow: [] } })).toEqual(
      expect.arrayContaining([expect.stringMatching(/^the network reads back as "open", not \{"allow":\[\]\}/)]),
    );
    const twoNetworks = joined((i) => (i.NetworkSettings!.Networks = { none: {}, other: {} }));
    expect(drift(joinedSpec, twoNetworks, hello, { ...expectedOf(f), proxy: { allow: [] } })).toEqual(
      expect.arrayContaining([expect.stringMatching(/network allow, but the computer is on none, other/)]),
    );
    const writable = joined((i) => (i.Mounts!.at(-1)!.RW = true));
    expect(drift(joinedSpec, writable, hello, { ...expectedOf(f), proxy: { allow: [] } })).toEqual(
      expect.arrayContaining([expect.stringMatching(/does not mount its egress volume .* read-only/)]),
    );
  });

  it("never reads a none computer with an egress volume as none", () => {
    expect(drift(f.spec, allowlisted(), hello, expectedOf(f))).toEqual(
      expect.arrayContaining([expect.stringMatching(/the network reads back as other \(network allow, but its egress proxy was not read\), not "none"/)]),
    );
  });
});
