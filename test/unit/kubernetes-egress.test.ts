// A Kubernetes computer's network beyond none, with no cluster: init's flags per network, the
// allowlist's proxy as a second container sharing only its socket's folder (non-root, nothing
// held), the sidecar read back and every way it can differ from what was made named, the Pod's
// own side of the network held, and the network's refusals and options before any API call.
import { describe, expect, it } from "vitest";
import type { Connection, NetworkPolicy } from "../../src/contract/provider.js";
import { inspectPod } from "../../src/kubernetes/inspect.js";
import { KubePods } from "../../src/kubernetes/pods.js";
import { create } from "../../src/kubernetes/create.js";
import { ENTRYPOINT_FIXED, KUBE_ENTRYPOINT } from "../../src/kubernetes/commands.js";
import { EGRESS_CONTAINER, initNetworkArgs, podNetwork, sidecarNetwork, type SidecarPlan, type SidecarWant } from "../../src/kubernetes/egress.js";
import { podManifest, type PodPlan } from "../../src/kubernetes/pod.js";
import { networkPartsDrift, podDrift, sidecarOf, sidecarProblem, waitingProblem, type Pod } from "../../src/kubernetes/readback.js";
import { EGRESS_MOUNT, EGRESS_SOCKET } from "../../src/egress/proxy-command.js";
import { tokenKubeconfig } from "../support/kubeconfig.js";

const kubeconfig = tokenKubeconfig;

const DEADLINE = "2026-12-02T12:00:00.000Z";
const IMAGE = "agentrun-egress:0123456789abcdef";
const sidecar: SidecarPlan = {
  image: IMAGE,
  pullPolicy: "Never",
  uid: 2510,
  gid: 2510,
  deadline: DEADLINE,
  allow: ["example.com", "*.example.org"],
  hostAddresses: ["203.0.113.7"],
  hint: "ask the operator",
};
const plan = (network: PodPlan["recorded"]["network"], withSidecar = typeof network === "object"): PodPlan => ({
  name: "computer-0123456789ab",
  namespace: "agents",
  deadline: DEADLINE,
  lifetimeMs: 600_000,
  recorded: { image: "base@sha256:" + "a".repeat(64), user: "2510:2510", workdir: "/work", ...(network ? { network } : {}) },
  labels: {},
  arch: "amd64",
  pullPolicy: "Never",
  waitSeconds: 150,
  sidecar: withSidecar ? { ...sidecar, ...(typeof network === "object" ? { allow: network.allow } : {}) } : undefined,
});
const want: SidecarWant = { image: IMAGE, pullPolicy: "Never", uid: 2510, gid: 2510, deadline: DEADLINE, hostAddresses: ["203.0.113.7"] };
const podWant = { runtimeClass: undefined, pullPolicy: "Never" };

type Manifest = { spec: { containers: Array<Record<string, unknown>>; volumes?: unknown[] } };

/** The manifest as the API server gives it back, both containers running on a node. */
function running(network: PodPlan["recorded"]["network"]): Pod {
  const pod = structuredClone(podManifest(plan(network))) as unknown as Pod;
  pod.spec!.nodeName = "node-1";
  pod.status = {
    phase: "Running",
    containerStatuses: (pod.spec!.containers ?? []).map((c) => ({ name: c.name, state: { running: { startedAt: "x" } } })),
  };
  return pod;
}

describe("init's network flags", () => {
  it("are a namespace of its own for none, that and the relay for an allowlist, and nothing for open", () => {
    expect(initNetworkArgs("none", undefined)).toEqual(["--own-network"]);
    expect(initNetworkArgs({ allow: ["example.com"] }, undefined)).toEqual(["--own-network", "--egress", EGRESS_SOCKET]);
    expect(initNetworkArgs("open", undefined)).toEqual([]);
  });

  it("are the read-back of lo alone for none under gVisor, whose sandbox's network is its handler's", () => {
    expect(initNetworkArgs("none", "gvisor")).toEqual(["--loopback-alone"]);
  });

  it("come after the entrypoint's three values, which no longer names --own-network itself", () => {
    const c = (podManifest(plan("none")) as unknown as Manifest).spec.containers[0]!;
    expect((c.command as string[]).slice(ENTRYPOINT_FIXED)).toEqual(["--own-network"]);
    expect(KUBE_ENTRYPOINT).not.toContain("--own-network");
    expect(KUBE_ENTRYPOINT.split("\n").at(-1)).toBe('exec "$d" init --deadline "$dl" --user "$u" "$@"');
  });
});

describe("the allowlisted Pod", () => {
  const m = podManifest(plan({ allow: sidecar.allow as string[] })) as unknown as Manifest;
  const [computer, proxy] = m.spec.containers;

  it("has the proxy as a second container, running computerd egress with the list, the deadline and the nodes' addresses", () => {
    expect(m.spec.containers.map((c) => c.name)).toEqual(["computer", EGRESS_CONTAINER]);
    expect(proxy).toMatchObject({ image: IMAGE, imagePullPolicy: "Never", command: ["/computerd-egress"] });
    expect(proxy!.args).toEqual([
      "egress",
      "--socket",
      EGRESS_SOCKET,
      "--deadline",
      DEADLINE,
      "--allow",
      "example.com",
      "--allow",
      "*.example.org",
      "--host-address",
      "203.0.113.7",
      "--hint",
      "ask the operator",
    ]);
  });

  it("runs the proxy non-root with every capability dropped, no privilege escalation, a read-only root and seccomp RuntimeDefault", () => {
    expect(proxy!.securityContext).toEqual({
      runAsUser: 2510,
      runAsGroup: 2510,
      runAsNonRoot: true,
      privileged: false,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(proxy!.resources).toMatchObject({ limits: { cpu: "500m", memory: "256Mi" } });
  });

  it("shares only the socket's folder, an emptyDir in memory, read-only in the computer", () => {
    expect(m.spec.volumes).toEqual([{ name: "egress", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } }]);
    expect(proxy!.volumeMounts).toEqual([{ name: "egress", mountPath: EGRESS_MOUNT }]);
    expect(computer!.volumeMounts).toEqual([{ name: "egress", mountPath: EGRESS_MOUNT, readOnly: true }]);
    expect((computer!.command as string[]).slice(ENTRYPOINT_FIXED)).toEqual(["--own-network", "--egress", EGRESS_SOCKET]);
  });

  it("has no sidecar with none or open, and no volume with none (open's are unprivileged.ts's)", () => {
    expect((podManifest(plan("open")) as unknown as Manifest).spec.containers.map((c) => c.name)).toEqual(["computer"]);
    for (const network of ["none"] as const) {
      const spec = (podManifest(plan(network)) as unknown as Manifest).spec;
      expect(spec.containers.map((c) => c.name)).toEqual(["computer"]);
      expect(spec.volumes).toBeUndefined();
      expect(spec.containers[0]!.volumeMounts).toBeUndefined();
    }
  });
});

describe("the sidecar read back", () => {
  const allow = { allow: ["*.example.org", "example.com"] };

  it("reads the list from the sidecar as made, and finds nothing wrong with the Pod", () => {
    const pod = running(allow);
    expect(sidecarNetwork(sidecarOf(pod), want)).toEqual({ allow: ["*.example.org", "example.com"] });
    expect(podDrift(pod, podWant)).toEqual([]);
  });

  const cases: Array<[string, (pod: Pod) => void, RegExp]> = [
    ["an image edited by hand", (p) => void (p.spec!.containers![1]!.image = "busybox:latest"), /runs busybox:latest, not the provider's proxy image/],
    [
      "a sidecar that ended",
      (p) => void (p.status!.containerStatuses![1]!.state = { terminated: { reason: "Error", exitCode: 2 } }),
      /is not running \(terminated \(Error, exit code 2\)/,
    ],
    ["a sidecar that is gone", (p) => void p.spec!.containers!.splice(1, 1), /is gone/],
    [
      "a capability added",
      (p) => void (p.spec!.containers![1]!.securityContext!.capabilities = { drop: ["ALL"], add: ["NET_RAW"] }),
      /is not hardened as made/,
    ],
    ["root", (p) => void (p.spec!.containers![1]!.securityContext!.runAsUser = 0), /is not hardened as made/],
    ["another deadline", (p) => void (p.spec!.containers![1]!.args![4] = "2027-01-01T00:00:00.000Z"), /ends at another time than its computer/],
    ["a private range reached by a test seam", (p) => void p.spec!.containers![1]!.args!.push("--reachable-for-tests", "10.0.0.0/16"), /test-only/],
    ["a disk-backed socket folder", (p) => void (p.spec!.volumes![0]!.emptyDir = {}), /not the emptyDir in memory/],
    [
      "TLS opened by hand",
      (p) => void p.spec!.containers![1]!.args!.push("--ca-file", "/opt/agentrun/egress/ca.pem"),
      /runs with --ca-file, which the provider never gives/,
    ],
  ];
  it.each(cases)("names %s", (_what, edit, words) => {
    const pod = running(allow);
    edit(pod);
    expect(sidecarNetwork(sidecarOf(pod), want)).toMatchObject({ other: expect.stringMatching(words) });
  });

  it("reads a list widened by hand as the sidecar runs it, so it differs from the declared one", () => {
    const pod = running(allow);
    pod.spec!.containers![1]!.args!.push("--allow", "evil.example");
    expect(sidecarNetwork(sidecarOf(pod), want)).toEqual({ allow: ["*.example.org", "evil.example", "example.com"] });
  });

  it("names a node address the proxy does not refuse (added to egress.hostAddresses since)", () => {
    const read = sidecarNetwork(sidecarOf(running(allow)), { ...want, hostAddresses: ["203.0.113.7", "198.51.100.1"] });
    expect(read).toMatchObject({ other: expect.stringMatching(/does not refuse the nodes' addresses 198\.51\.100\.1/) });
  });

  it("reads none and open as recorded, and an allowlist only through its sidecar", () => {
    const pod = running(allow);
    expect(podNetwork("none", sidecarOf(pod), want)).toBe("none");
    expect(podNetwork("open", sidecarOf(pod), want)).toBe("open");
    expect(podNetwork(allow, sidecarOf(pod), undefined)).toMatchObject({ other: expect.any(String) });
  });
});

describe("the Pod's own side of its network", () => {
  it("names a sidecar where none was declared, a debug container and init's flags", () => {
    const pod = running("none");
    pod.spec!.containers!.push({ name: "egress" });
    pod.spec!.ephemeralContainers = [{ name: "debugger" }];
    (pod.spec!.containers![0]!.command as string[]).splice(ENTRYPOINT_FIXED);
    const drift = networkPartsDrift(pod, "none").join("; ");
    expect(drift).toMatch(/its containers are \["computer","egress"\], not \["computer"\]/);
    expect(drift).toMatch(/ephemeral containers \(debugger\)/);
    expect(drift).toMatch(/its init runs with the network flags \[\], not \["--own-network"\]/);
  });

  it("names a computer that does not mount the socket's folder read-only", () => {
    const pod = running({ allow: ["example.com"] });
    pod.spec!.containers![0]!.volumeMounts = [{ name: "egress", mountPath: EGRESS_MOUNT }];
    expect(networkPartsDrift(pod, { allow: ["example.com"] }).join("; ")).toMatch(/its container mounts/);
  });

  it("reads a Pod made before networks beyond none as none", () => {
    const pod = running(undefined);
    expect(podDrift(pod, podWant)).toEqual([]);
  });
});

describe("a proxy that never serves", () => {
  it("is refused while the Pod starts, naming egress.image for an image the node lacks", () => {
    const pod = running({ allow: ["example.com"] });
    pod.status!.containerStatuses![1]!.state = { waiting: { reason: "ErrImageNeverPull", message: "not present" } };
    expect(sidecarProblem(pod)).toMatchObject({ field: "egress.image", message: expect.stringMatching(/no program of the computer ran/) });
    expect(waitingProblem(pod)).toMatchObject({ field: "egress.image" });
    pod.status!.containerStatuses![1]!.state = { waiting: { reason: "ContainerCreating" } };
    expect(sidecarProblem(pod)).toBeUndefined();
    pod.status!.containerStatuses![1]!.state = { terminated: { reason: "Error", exitCode: 1 } };
    expect(sidecarProblem(pod)?.message).toMatch(/ended before it was ready/);
  });
});

describe("check and options", () => {
  const provider = create({ kubeconfig });

  it("takes none, open and an allowlist, and declares all three", () => {
    const networks: NetworkPolicy[] = ["none", "open", { allow: ["example.com"] }];
    for (const network of networks) expect(provider.check({ image: "i", lifetimeMs: 1000, network }).ok).toBe(true);
    expect(provider.capabilities().network).toEqual(["none", "open", "allow"]);
  });

  it("refuses a list the proxy would refuse, every entry named, and a private range", () => {
    const checked = provider.check({ image: "i", lifetimeMs: 1000, network: { allow: ["https://example.com", "10.0.0.0/8"] } });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.error.refusals?.map((r) => r.field)).toEqual(["network", "network"]);
    expect(checked.error.message).toMatch(/is a URL/);
    expect(checked.error.message).toMatch(/private range the proxy never reaches/);
  });

  it("takes the test seam's range only with testOnly, and then a CIDR in it", () => {
    expect(() => create({ kubeconfig, egress: { testNetwork: { range: "10.209.0.0/24" } } })).toThrow(/test-only/);
    const seam = create({ kubeconfig, egress: { testNetwork: { range: "10.209.0.0/24" }, testOnly: true } });
    expect(seam.check({ image: "i", lifetimeMs: 1000, network: { allow: ["10.209.0.1/32"] } }).ok).toBe(true);
  });

  it("takes names the test seam resolves only to addresses in its range", () => {
    const seam = create({ kubeconfig, egress: { testNetwork: { range: "10.209.0.0/24", names: { "up.test": "10.209.0.1" } }, testOnly: true } });
    expect(seam.check({ image: "i", lifetimeMs: 1000, network: { allow: ["up.test"] } }).ok).toBe(true);
    expect(() => create({ kubeconfig, egress: { testNetwork: { range: "10.209.0.0/24", names: { "up.test": "10.0.0.1" } }, testOnly: true } })).toThrow(
      /testNetwork\.names maps "up\.test".*"10\.0\.0\.1"/,
    );
    expect(() => create({ kubeconfig, egress: { testNetwork: { range: "10.209.0.0/24", names: { "Up Test": "10.209.0.1" } }, testOnly: true } })).toThrow(
      /not a lower-case name/,
    );
  });

  it("takes a test upstream's root only as one PEM certificate", () => {
    expect(() => create({ kubeconfig, egress: { testNetwork: { range: "10.209.0.0/24", upstreamRoot: "not pem" }, testOnly: true } })).toThrow(
      /testNetwork\.upstreamRoot is one PEM certificate/,
    );
  });

  it("refuses a host address that is not an IP address, naming egress", () => {
    expect(() => create({ kubeconfig, egress: { hostAddresses: ["node-1.example"] } })).toThrow(/egress.*not an IP address/);
  });
});

describe("the network read from inside (inspect)", () => {
  const hello = { version: "1.0.0", os: "linux", kind: "linux" as const, arch: "amd64", groups: ["exec", "files", "processes"] };
  /** A KubePods slice whose connection answers the probe with these interfaces, recording the probe's argv. */
  function pods(interfaces: string[], asked: string[][], note?: string) {
    const client = {
      call: async (method: string, params: { argv: string[] }) => {
        expect(method).toBe("exec.run");
        asked.push(params.argv);
        const targets = params.argv.filter((_a, i) => params.argv[i - 1] === "--connect");
        const line = {
          uid: 2510,
          gid: 2510,
          kernel: "6",
          interfaces,
          reached: [],
          accepted: [],
          results: targets.map((target) => ({ target, protocol: "tcp", outcome: "refused", bytes: 0, detail: "refused" })),
        };
        return { exitCode: 0, timedOut: false, stdout: Buffer.from(JSON.stringify(line)).toString("base64"), stderr: "" };
      },
    };
    const connection = { client, hello, close: async () => undefined } as unknown as Connection;
    return {
      o: {
        runtimeClass: undefined,
        pullPolicy: "Never",
        probeTargets: undefined,
        egress: { image: IMAGE, hostAddresses: ["203.0.113.7"], hint: "h", testRange: undefined },
      },
      open: async () => ({ ok: true, value: connection }),
      want: () => ({ version: "1.0.0", arch: "amd64", kind: "linux", groups: ["exec", "files", "processes"], user: "2510:2510", sha256: "" }),
      egressImage: async () => ({ ok: true, value: IMAGE }),
      nodeAddresses: async () => ({ ok: true, value: { addresses: ["203.0.113.7"], ...(note ? { note } : {}) } }),
      nodeState: async () => ({ ok: true, value: { lost: undefined, kernel: undefined } }),
      // The Pod client's own want, over the stand-in's image and addresses.
      sidecarWant: KubePods.prototype.sidecarWant,
    } as unknown as KubePods;
  }

  it("reads open as the Pod's interfaces beside lo, dialing only the computer's own loopback", async () => {
    const asked: string[][] = [];
    const read = await inspectPod(pods(["eth0", "lo"], asked), running("open"), {});
    expect(read.ok && read.value.drift).toEqual([]);
    expect(read.ok && read.value.ref.spec?.network).toBe("open");
    expect(asked[0]!.filter((_a, i) => asked[0]![i - 1] === "--connect")).toEqual(["127.0.0.1:9"]);
  });

  it("names an open computer whose programs see lo alone", async () => {
    const read = await inspectPod(pods(["lo"], []), running("open"), {});
    expect(read.ok && read.value.drift.join("; ")).toMatch(/network open, but the computer's programs see lo alone/);
    expect(read.ok && read.value.ref.spec?.network).toMatchObject({ other: expect.any(String) });
  });

  it("reads an allowlist as its sidecar's list while its programs see lo alone", async () => {
    const read = await inspectPod(pods(["lo"], []), running({ allow: ["example.com"] }), {});
    expect(read.ok && read.value.drift).toEqual([]);
    expect(read.ok && read.value.ref.spec?.network).toEqual({ allow: ["example.com"] });
  });

  it("names an allowlisted computer whose programs see the Pod's network past the proxy", async () => {
    const read = await inspectPod(pods(["eth0", "lo"], []), running({ allow: ["example.com"] }), {});
    expect(read.ok && read.value.drift.join("; ")).toMatch(/network allow, but not through its proxy alone/);
  });

  it("says in the notes when the nodes' own addresses could not be read", async () => {
    const note = "the credentials may not list nodes, so the egress proxy refuses none of them (egress.hostAddresses is empty)";
    const read = await inspectPod(pods(["lo"], [], note), running({ allow: ["example.com"] }), {});
    expect(read.ok && read.value.ref.notes).toContain(note);
  });

  it("names a sidecar whose image was edited by hand", async () => {
    const pod = running({ allow: ["example.com"] });
    pod.spec!.containers![1]!.image = "busybox:latest";
    const read = await inspectPod(pods(["lo"], []), pod, {});
    expect(read.ok && read.value.drift.join("; ")).toMatch(/the egress proxy runs busybox:latest, not the provider's proxy image/);
  });
});
