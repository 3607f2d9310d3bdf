// The egress parts as requests, their read-back, the daemon's tar and the host's addresses.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rootCertificates } from "node:tls";
import { describe, expect, it } from "vitest";
import { daemonDigest } from "../../src/docker/daemon-cache.js";
import { proxyImageTag } from "../../src/docker/egress-image.js";
import { egressImageTag, proxyBinaryBeside } from "../../src/egress/proxy-command.js";
import { imageDigestOf, proxyImageTagOf, proxyTar, ROOTS_PATH } from "../../src/kits/image/egress-proxy.js";
import { KubePods } from "../../src/kubernetes/pods.js";
import { tokenKubeconfig } from "../support/kubeconfig.js";
import { proxyReadBack, type EgressExpected } from "../../src/docker/egress-readback.js";
import { EGRESS_LABEL, egressArgs, egressProxyRequest, egressVolumeRequest, type EgressPlan } from "../../src/docker/egress-request.js";
import { containerSign, hostAddresses } from "../../src/egress/host-addresses.js";

const plan: EgressPlan = {
  key: "computer-0123456789ab",
  uid: 1000,
  gid: 1000,
  deadline: "2030-01-02T03:04:05.000Z",
  allow: ["*.pythonhosted.org", "pypi.org", "93.184.215.0/24"],
  hostAddresses: ["203.0.113.7"],
  hint: "ask the operator",
  labels: { "agentrun.run": "r1" },
  image: "agentrun-egress:0123456789abcdef",
};
const want: EgressExpected = { key: plan.key, uid: 1000, gid: 1000, deadline: plan.deadline, image: plan.image, hostAddresses: ["203.0.113.7"] };

/** The proxy as docker inspect reports the container egressProxyRequest makes. */
function inspected(p: EgressPlan = plan) {
  const r = egressProxyRequest(p);
  return {
    Name: `/${r.name}`,
    State: { Running: true },
    Config: { Image: r.body.Image, User: r.body.User, Labels: r.body.Labels, Entrypoint: r.body.Entrypoint, Cmd: r.body.Cmd, Env: r.body.Env },
    HostConfig: {
      ...r.body.HostConfig,
      Ulimits: [{ Name: "nofile", Hard: 1024, Soft: 1024 }],
      PortBindings: {},
      CapAdd: null,
      Privileged: false,
      PublishAllPorts: false,
    },
    NetworkSettings: { Networks: { [r.body.HostConfig.NetworkMode]: {} } },
    Mounts: [{ Type: "volume", Name: `${p.key}-egress`, Source: "/var/lib/docker/volumes/x/_data", Destination: "/opt/agentrun/egress", RW: true }],
  };
}

describe("the egress parts as requests", () => {
  it("makes the volume a 1 MiB tmpfs, 0700, the computer's user's, labelled by its computer", () => {
    expect(egressVolumeRequest(plan)).toEqual({
      Name: "computer-0123456789ab-egress",
      Driver: "local",
      DriverOpts: { type: "tmpfs", device: "tmpfs", o: "size=1m,uid=1000,gid=1000,mode=0700" },
      Labels: { "agentrun.run": "r1", [EGRESS_LABEL]: plan.key, "agentrun.computer.deadline": plan.deadline },
    });
  });

  it("runs the proxy on the default bridge alone, as the computer's user, read-only, capability-free and bounded", () => {
    const { body } = egressProxyRequest(plan);
    expect(body.User).toBe("1000:1000");
    expect(body.Labels).not.toHaveProperty("agentrun.computer");
    expect(body.HostConfig).toMatchObject({
      NetworkMode: "bridge",
      ReadonlyRootfs: true,
      CapDrop: ["ALL"],
      SecurityOpt: ["no-new-privileges"],
      Memory: 256 * 1024 * 1024,
      MemorySwap: 256 * 1024 * 1024,
      PidsLimit: 64,
      CpuQuota: 50_000,
      CpuPeriod: 100_000,
      Ulimits: [{ Name: "nofile", Soft: 1024, Hard: 1024 }],
      LogConfig: { Type: "json-file", Config: { "max-size": "1m", "max-file": "2" } },
    });
    expect(body.HostConfig).not.toHaveProperty("PortBindings");
  });

  it("gives the proxy its list, deadline, the host's addresses and the hint", () => {
    expect(egressArgs(plan)).toEqual([
      "egress",
      "--socket",
      "/opt/agentrun/egress/egress.sock",
      "--deadline",
      plan.deadline,
      "--allow",
      "*.pythonhosted.org",
      "--allow",
      "pypi.org",
      "--allow",
      "93.184.215.0/24",
      "--host-address",
      "203.0.113.7",
      "--hint",
      "ask the operator",
    ]);
  });
});

describe("a proxy that opens TLS", () => {
  const credentials = [{ host: "pypi.org", header: "Authorization", value: "Bearer k" }];
  it("is given --ca-file when it holds rules or credentials, and the test root only with the test seam", () => {
    const tail = ["--ca-file", "/opt/agentrun/egress/ca.pem"];
    expect(egressArgs(plan).slice(-2)).not.toEqual(tail);
    expect(egressArgs({ ...plan, rules: ["pypi.org GET /simple/"] }).slice(-2)).toEqual(tail);
    expect(egressArgs({ ...plan, credentials }).slice(-2)).toEqual(tail);
    const root = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n";
    const args = egressArgs({ ...plan, testNetwork: { range: "10.213.0.0/24", upstreamRoot: root } });
    expect(args.slice(-2)).toEqual(["--upstream-root-for-tests", root]);
  });

  it("reads back as made, and as other when its TLS does not match its rules, its CA is elsewhere, or it trusts a root the provider has not", () => {
    const opened = { ...plan, rules: ["pypi.org GET /simple/"], credentials };
    expect(proxyReadBack(inspected(opened), want)).toHaveProperty("allow");
    expect(proxyReadBack(inspected({ ...plan, credentials }), want)).toHaveProperty("allow");
    const other = (p: ReturnType<typeof inspected>) => (proxyReadBack(p, want) as { other?: string }).other;
    const old = inspected(opened);
    old.Config.Cmd = old.Config.Cmd.slice(0, -2);
    expect(other(old)).toMatch(/holds rules or credentials but opens no TLS for their hosts \(made before it could\)$/);
    const bare = inspected(plan);
    bare.Config.Cmd.push("--ca-file", "/opt/agentrun/egress/ca.pem");
    expect(other(bare)).toMatch(/opens TLS with no rules or credentials to judge it by$/);
    const elsewhere = inspected(opened);
    elsewhere.Config.Cmd[elsewhere.Config.Cmd.length - 1] = "/tmp/ca.pem";
    expect(other(elsewhere)).toMatch(/writes its CA elsewhere than \/opt\/agentrun\/egress\/ca.pem$/);
    const rooted = inspected(opened);
    rooted.Config.Cmd.push("--upstream-root-for-tests", "x");
    expect(other(rooted)).toMatch(/trusts an upstream root of its own, a test-only setting this provider does not have$/);
  });
});

describe("a proxy read back", () => {
  it("reads the list back from a proxy as made", () => {
    expect(proxyReadBack(inspected(), want)).toEqual({ allow: ["*.pythonhosted.org", "pypi.org", "93.184.215.0/24"] });
  });

  it("holds the proxy to today's host addresses: more is fine, fewer is other", () => {
    expect(proxyReadBack(inspected({ ...plan, hostAddresses: ["203.0.113.7", "198.51.100.9"] }), want)).toHaveProperty("allow");
    expect(proxyReadBack(inspected(), { ...want, hostAddresses: ["203.0.113.7", "203.0.113.8"] })).toEqual({
      other:
        "network allow, but its egress proxy computer-0123456789ab-egress does not refuse the Docker host's addresses 203.0.113.8 (the host gained them after the proxy was made)",
    });
  });

  type Proxy = ReturnType<typeof inspected>;
  const cases: Array<[string, (p: Proxy) => void, RegExp]> = [
    ["stopped", (p) => (p.State.Running = false), /is not running/],
    ["another computer's", (p) => (p.Config.Labels[EGRESS_LABEL] = "computer-ffffffffffff"), /does not carry agentrun.computer.egress=computer-0123456789ab/],
    ["another deadline", (p) => (p.Config.Labels["agentrun.computer.deadline"] = "2031-01-01T00:00:00.000Z"), /carries another deadline/],
    ["another image", (p) => (p.Config.Image = "node:22"), /runs node:22, not the provider's proxy image/],
    ["as root", (p) => (p.Config.User = "0:0"), /runs as 0:0/],
    ["on another network too", (p) => (p.NetworkSettings.Networks = { bridge: {}, other: {} }), /is not on the default bridge alone \(bridge, other\)/],
    ["on the host's network", (p) => ((p.HostConfig as Record<string, unknown>).NetworkMode = "host"), /is not on the default bridge alone/],
    ["with a port published", (p) => ((p.HostConfig as Record<string, unknown>).PortBindings = { "3128/tcp": [{ HostPort: "3128" }] }), /publishes a port/],
    ["writable", (p) => ((p.HostConfig as Record<string, unknown>).ReadonlyRootfs = false), /has a writable root/],
    ["with a capability", (p) => ((p.HostConfig as Record<string, unknown>).CapAdd = ["NET_RAW"]), /holds a capability/],
    ["privileged", (p) => ((p.HostConfig as Record<string, unknown>).Privileged = true), /holds a capability/],
    ["seccomp off", (p) => ((p.HostConfig as Record<string, unknown>).SecurityOpt = ["no-new-privileges", "seccomp=unconfined"]), /no-new-privileges/],
    ["unbounded memory", (p) => ((p.HostConfig as Record<string, unknown>).MemorySwap = -1), /256 MiB/],
    ["unbounded pids", (p) => ((p.HostConfig as Record<string, unknown>).PidsLimit = 0), /64 pids/],
    ["a whole CPU", (p) => ((p.HostConfig as Record<string, unknown>).CpuQuota = 100_000), /half a CPU/],
    ["more open files", (p) => ((p.HostConfig as Record<string, unknown>).Ulimits = [{ Name: "nofile", Hard: 65536, Soft: 65536 }]), /1024 open files/],
    ["an unbounded log", (p) => ((p.HostConfig as Record<string, unknown>).LogConfig = { Type: "json-file", Config: {} }), /json-file log/],
    ["restarted", (p) => ((p.HostConfig as Record<string, unknown>).RestartPolicy = { Name: "always" }), /restart policy/],
    ["another volume", (p) => (p.Mounts[0]!.Name = "other"), /does not mount exactly its volume/],
    ["a second mount", (p) => p.Mounts.push({ ...p.Mounts[0]!, Destination: "/x" }), /does not mount exactly its volume/],
    ["re-run by hand with a wider list", (p) => p.Config.Cmd.push("--allow", "evil.example"), /^network allow/],
    ["a list check refuses", (p) => p.Config.Cmd.push("--allow", "10.0.0.0/8"), /holds a list check refuses: "10.0.0.0\/8" is over 10.0.0.0\/8/],
    ["the test seam", (p) => p.Config.Cmd.push("--reachable-for-tests", "10.213.0.0/24"), /marks 10.213.0.0\/24 reachable, a test-only setting/],
    [
      "names resolved by the test seam",
      (p) => p.Config.Cmd.push("--resolve-for-tests", "up.test=10.213.0.1"),
      /resolves names of its own, a test-only setting/,
    ],
    ["another command", (p) => (p.Config.Cmd[0] = "init"), /runs another command than computerd egress/],
    ["an unknown flag", (p) => p.Config.Cmd.push("--verbose", "1"), /runs with --verbose/],
    ["another socket", (p) => (p.Config.Cmd[2] = "/tmp/s.sock"), /does not listen on \/opt\/agentrun\/egress\/egress.sock/],
  ];
  it.each(cases)("reads a proxy %s as other", (_, change, words) => {
    const p = inspected();
    change(p);
    const got = proxyReadBack(p, want);
    if ("allow" in (got as object)) {
      // A wider list reads back as that list, which a caller compares with what it asked.
      expect((got as { allow: string[] }).allow).toContain("evil.example");
      return;
    }
    expect(got).toEqual({ other: expect.stringMatching(words) });
    expect((got as { other: string }).other).toMatch(/^network allow, but its egress proxy computer-0123456789ab-egress /);
  });

  it("reads a proxy that is gone as other", () => {
    expect(proxyReadBack(undefined, want)).toEqual({ other: "network allow, but its egress proxy computer-0123456789ab-egress is gone" });
  });

  it("takes the test seam when the test network is the provider's", () => {
    const test = { name: "net-x", range: "10.213.0.0/24" };
    const p = inspected({ ...plan, allow: ["10.213.0.0/24"], testNetwork: test });
    expect(proxyReadBack(p, { ...want, testNetwork: test })).toEqual({ allow: ["10.213.0.0/24"] });
    expect(proxyReadBack(p, want)).toHaveProperty("other");
  });
});

describe("the proxy's image", () => {
  it("is a tar of computerd-egress (0755) and the roots it verifies TLS against (0644, Node's own), owned by root", () => {
    const dir = mkdtempSync(join(tmpdir(), "egress-tar-"));
    const bytes = Buffer.from("#!/bin/sh\necho proxy\n".repeat(50));
    writeFileSync(join(dir, "a.tar"), proxyTar(bytes));
    expect(execFileSync("tar", ["-tvf", join(dir, "a.tar")], { encoding: "utf8" })).toMatch(
      /^-rwxr-xr-x 0\/0 +1050 1970-01-01 00:00 computerd-egress\n-rw-r--r-- 0\/0 +\d+ 1970-01-01 00:00 etc\/ssl\/certs\/ca-certificates.crt\n$/,
    );
    mkdirSync(join(dir, "x"));
    execFileSync("tar", ["-xf", join(dir, "a.tar"), "-C", join(dir, "x")]);
    expect(execFileSync("cat", [join(dir, "x", "computerd-egress")])).toEqual(bytes);
    const roots = readFileSync(join(dir, "x", ROOTS_PATH), "utf8");
    expect(roots).toBe(rootCertificates.join("\n") + "\n");
    expect(rootCertificates.length).toBeGreaterThan(100);
  });

  it("holds the proxy built beside the daemon, named for it", () => {
    expect(proxyBinaryBeside("/p/dist/computerd-linux-amd64")).toBe("/p/dist/computerd-egress-linux-amd64");
    expect(proxyBinaryBeside("/p/computerd")).toBe("/p/computerd-egress");
    expect(proxyBinaryBeside("/p/my-daemon")).toBe("/p/my-daemon-egress");
  });

  it("is tagged by the proxy's hash and the roots', hashed anew when the proxy's file changes", async () => {
    const proxy = join(mkdtempSync(join(tmpdir(), "egress-tag-")), "computerd-egress");
    writeFileSync(proxy, "a");
    const first = await proxyImageTag(proxy);
    expect(first).toBe(egressImageTag(imageDigestOf(await daemonDigest(proxy))));
    expect(first).toMatch(/^agentrun-egress:[0-9a-f]{16}$/);
    expect(first).not.toBe(egressImageTag(await daemonDigest(proxy)));
    writeFileSync(proxy, "bb");
    expect(await proxyImageTag(proxy)).not.toBe(first);
    expect(egressImageTag("ca978112ca1bbdca0000")).toBe("agentrun-egress:ca978112ca1bbdca");
  });

  it("is the same recipe for a Kubernetes sidecar, roots and all, unless egress.image names another", async () => {
    const dir = mkdtempSync(join(tmpdir(), "egress-kube-"));
    writeFileSync(join(dir, "computerd"), "d");
    writeFileSync(join(dir, "computerd-egress"), "proxy");
    const pods = (egress = {}) => new KubePods({ kubeconfig: tokenKubeconfig, daemonPath: join(dir, "computerd"), egress }, () => "0.0.0");
    const docker = await proxyImageTag(join(dir, "computerd-egress"));
    expect(await pods().egressImage()).toEqual({ ok: true, value: docker });
    expect(docker).toBe(proxyImageTagOf(await daemonDigest(join(dir, "computerd-egress"))));
    expect(docker).not.toBe(egressImageTag(await daemonDigest(join(dir, "computerd-egress"))));
    expect(await pods({ image: "registry.test/egress:1" }).egressImage()).toEqual({ ok: true, value: "registry.test/egress:1" });
  });
});

describe("the Docker host's addresses", () => {
  const lo = { lo: [{ address: "127.0.0.1", netmask: "255.0.0.0", family: "IPv4" as const, mac: "00:00:00:00:00:00", internal: true, cidr: "127.0.0.1/8" }] };
  const eth = {
    eth0: [{ address: "203.0.113.7", netmask: "255.255.255.0", family: "IPv4" as const, mac: "02:00:00:00:00:01", internal: false, cidr: "203.0.113.7/24" }],
  };

  it("are this machine's public interface addresses on a plain host: loopback, private and link-local left to the table", () => {
    const root = mkdtempSync(join(tmpdir(), "host-"));
    const more = {
      eth1: [{ address: "8.8.4.4", netmask: "255.255.255.0", family: "IPv4" as const, mac: "02:00:00:00:00:02", internal: false, cidr: "8.8.4.4/24" }],
      veth: [
        {
          address: "fe80::1",
          netmask: "ffff:ffff:ffff:ffff::",
          family: "IPv6" as const,
          mac: "02:00:00:00:00:03",
          internal: false,
          cidr: "fe80::1/64",
          scopeid: 5,
        },
      ],
      docker0: [{ address: "172.17.0.1", netmask: "255.255.0.0", family: "IPv4" as const, mac: "02:00:00:00:00:04", internal: false, cidr: "172.17.0.1/16" }],
    };
    expect(hostAddresses({ hostRoot: root, interfaces: { ...lo, ...eth, ...more } })).toEqual({ ok: true, value: ["8.8.4.4"] });
  });

  it("are refused in words in a container, unless the caller names them", () => {
    const root = mkdtempSync(join(tmpdir(), "host-"));
    writeFileSync(join(root, ".dockerenv"), "");
    expect(containerSign(root)).toBe("/.dockerenv is there");
    const got = hostAddresses({ hostRoot: root, interfaces: eth });
    expect(got).toMatchObject({
      ok: false,
      error: { code: "unsupported", message: expect.stringMatching(/runs in a container \(\/.dockerenv is there\).*give egress.hostAddresses/) },
    });
    expect(hostAddresses({ hostRoot: root, interfaces: eth, hostAddresses: ["198.51.100.1", "::ffff:198.51.100.2"] })).toEqual({
      ok: true,
      value: ["198.51.100.1", "198.51.100.2"],
    });
  });

  it("refuses in words, on the Docker host itself, a given address that is none of its own and not public", () => {
    const root = mkdtempSync(join(tmpdir(), "host-"));
    const got = hostAddresses({ hostRoot: root, interfaces: eth, hostAddresses: ["192.0.2.1"] });
    expect(got).toMatchObject({
      ok: false,
      error: {
        code: "invalid",
        field: "egress.hostAddresses",
        message: expect.stringMatching(/^egress.hostAddresses holds 192\.0\.2\.1, which is none of this host's addresses.*ip -brief address/),
      },
    });
    // A public one on no interface is the host's NAT'd address: taken.
    expect(hostAddresses({ hostRoot: root, interfaces: eth, hostAddresses: ["8.8.8.8"] }).ok).toBe(true);
  });

  it("reads a container's cgroup as a sign", () => {
    const root = mkdtempSync(join(tmpdir(), "host-"));
    mkdirSync(join(root, "proc", "self"), { recursive: true });
    writeFileSync(join(root, "proc", "self", "cgroup"), "0::/system.slice/docker-0123abcd.scope\n");
    expect(containerSign(root)).toMatch(/its cgroup/);
    writeFileSync(join(root, "proc", "self", "cgroup"), "0::/user.slice/user-1000.slice\n");
    expect(containerSign(root)).toBeUndefined();
  });

  it("refuses a given address that is not one", () => {
    expect(hostAddresses({ hostAddresses: ["example.com"], interfaces: {} })).toMatchObject({ ok: false, error: { field: "egress.hostAddresses" } });
  });
});
