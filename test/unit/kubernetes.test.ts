// The Kubernetes provider's parts that need no cluster: the kubeconfig parsed and each bad one
// refused naming kubeconfig (never a value from it), the labels hashed where Kubernetes cannot
// hold them and read back as given, the Pod's manifest, its drift check, and the refusals of bad
// options and specs before anything is asked of an API server.
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { providerFor } from "../../src/providers.js";
import { create } from "../../src/kubernetes/create.js";
import { parseKubeconfig } from "../../src/kubernetes/kubeconfig.js";
import { decodeLabels, encodeLabel, labelDrift, encodeLabels, isLabelKey, isLabelValue, labelsAnnotation, selectorOf } from "../../src/kubernetes/labels.js";
import { cpuQuantity, memoryQuantity, podManifest, type PodPlan } from "../../src/kubernetes/pod.js";
import { computerState, podDrift, waitingProblem, type Pod } from "../../src/kubernetes/readback.js";
import { exitOf, execUrl } from "../../src/kubernetes/exec.js";
import { ownerLabels, runLabels } from "../../src/contract/labels.js";

const SECRET_KEY = "c2VjcmV0LWtleS1ub3Qtc2hvd24=";

function kubeconfig(
  over: { cluster?: Record<string, unknown>; user?: Record<string, unknown>; context?: Record<string, unknown>; current?: string } = {},
): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      { name: "c", cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": Buffer.from("CA PEM").toString("base64"), ...over.cluster } },
    ],
    users: [{ name: "u", user: { "client-certificate-data": Buffer.from("CERT").toString("base64"), "client-key-data": SECRET_KEY, ...over.user } }],
    contexts: [{ name: "ctx", context: { cluster: "c", user: "u", ...over.context } }],
    "current-context": over.current ?? "ctx",
  });
}

describe("the kubeconfig", () => {
  it("gives the current context's server, CA, client certificate and namespace", () => {
    const c = parseKubeconfig(kubeconfig({ context: { namespace: "agents" } }));
    expect(c).toEqual({ server: "https://127.0.0.1:6443", ca: "CA PEM", cert: "CERT", key: "secret-key-not-shown", namespace: "agents" });
  });

  it("takes a bearer token in place of a certificate", () => {
    const c = parseKubeconfig(kubeconfig({ user: { "client-certificate-data": undefined, "client-key-data": undefined, token: "tok" } }));
    expect(c.token).toBe("tok");
    expect(c.cert).toBeUndefined();
  });

  it.each([
    ["not YAML", "{ not: [yaml", /does not parse as YAML/],
    ["empty", "", /empty/],
    ["no current context", kubeconfig({ current: "" }), /names no current-context/],
    ["a context it lacks", kubeconfig({ current: "other" }), /holds no such context/],
    ["a server that is not https", kubeconfig({ cluster: { server: "http://127.0.0.1:8080" } }), /not https/],
    ["TLS checks skipped", kubeconfig({ cluster: { "insecure-skip-tls-verify": true } }), /insecure-skip-tls-verify/],
    ["a file path for the key", kubeconfig({ user: { "client-key-data": undefined, "client-key": "/etc/key.pem" } }), /client-key-data/],
    ["an exec plugin", kubeconfig({ user: { "client-certificate-data": undefined, "client-key-data": undefined, exec: { command: "aws" } } }), /exec plugin/],
    ["no credentials", kubeconfig({ user: { "client-certificate-data": undefined, "client-key-data": undefined } }), /no client certificate and no token/],
  ])("is refused when %s, naming kubeconfig and never the key", (_what, text, words) => {
    let error: unknown;
    try {
      parseKubeconfig(text);
    } catch (e) {
      error = e;
    }
    expect((error as Error).message).toMatch(words);
    expect((error as Error).message).toMatch(/kubeconfig/);
    expect((error as Error).message).not.toContain("secret-key-not-shown");
    expect((error as { option?: string }).option).toBe("kubeconfig");
  });
});

describe("labels", () => {
  it("keeps a key and value Kubernetes takes, and hashes those it cannot hold", () => {
    expect(isLabelKey("agentrun.run")).toBe(true);
    expect(isLabelKey("example.com/team")).toBe(true);
    expect(isLabelKey("has space")).toBe(false);
    expect(isLabelValue("x".repeat(63))).toBe(true);
    expect(isLabelValue("x".repeat(64))).toBe(false);
    expect(encodeLabel("agentrun.epoch", "3")).toEqual(["agentrun.epoch", "3"]);
    const [k, v] = encodeLabel("team name", "run:2026/12/02");
    expect(k).toMatch(/^agentrun\.computer\/k-[0-9a-f]{40}$/);
    expect(v).toMatch(/^h-[0-9a-f]{40}$/);
    expect(isLabelKey(k) && isLabelValue(v)).toBe(true);
    // The same label hashes the same every time: a list selects it by its hash.
    expect(encodeLabel("team name", "run:2026/12/02")).toEqual([k, v]);
  });

  it("writes the run, epoch, owner and declaration labels so each is a valid Kubernetes label", () => {
    const labels = { ...runLabels("run:with/colons and spaces", 7), ...ownerLabels("stack/urn::x", { image: "i" }) };
    for (const [k, v] of Object.entries(encodeLabels(labels))) expect(isLabelKey(k) && isLabelValue(v)).toBe(true);
  });

  it("reads back the labels as given, a hand-changed one as it now is", () => {
    const given = { "agentrun.run": "run:1", team: "a" };
    const pod = { "agentrun.computer": "1", ...encodeLabels(given) };
    expect(decodeLabels(pod, given)).toEqual(given);
    expect(decodeLabels({ ...pod, team: "b" }, given)).toEqual({ "agentrun.run": "run:1", team: "b" });
  });

  it("selects by the provider's label and each asked label encoded", () => {
    expect(selectorOf({ "agentrun.run": "run:1" })).toBe(`agentrun.computer=1,agentrun.run=${encodeLabel("agentrun.run", "run:1")[1]}`);
  });
});

const plan: PodPlan = {
  name: "computer-0123456789ab",
  namespace: "agents",
  deadline: "2026-12-02T12:00:00.000Z",
  lifetimeMs: 600_000,
  recorded: { image: "base@sha256:" + "a".repeat(64), user: "2510:2510", workdir: "/work", cpus: 0.5, memoryMb: 256 },
  labels: { "agentrun.run": "run:1" },
  arch: "amd64",
  pullPolicy: "Never",
  waitSeconds: 150,
};

describe("the Pod", () => {
  const m = podManifest(plan) as { metadata: Record<string, never>; spec: Record<string, never> };
  const spec = m.spec as unknown as Record<string, unknown> & { containers: Array<Record<string, unknown>> };
  const c = spec.containers[0]!;

  it("is made once and never restarted, its deadline both init's and activeDeadlineSeconds", () => {
    expect(spec.restartPolicy).toBe("Never");
    expect(spec.activeDeadlineSeconds).toBe(630);
    expect((c.command as string[]).slice(4)).toEqual(["2026-12-02T12:00:00.000Z", "2510:2510", "150", "--own-network"]);
  });

  it("holds no token, no service links, no host namespace, seccomp RuntimeDefault, and init's capabilities alone", () => {
    expect(spec).toMatchObject({ automountServiceAccountToken: false, enableServiceLinks: false, hostNetwork: false, hostPID: false, hostIPC: false });
    expect(spec.securityContext).toEqual({ seccompProfile: { type: "RuntimeDefault" } });
    expect(c.securityContext).toMatchObject({
      privileged: false,
      capabilities: { drop: ["ALL"], add: ["SYS_ADMIN", "NET_ADMIN", "CHOWN", "DAC_OVERRIDE", "FOWNER", "SETPCAP", "SETUID", "SETGID"] },
    });
    expect(c).toMatchObject({ image: plan.recorded.image, imagePullPolicy: "Never" });
    expect(c.resources).toEqual({ requests: { cpu: "500m", memory: "256Mi" }, limits: { cpu: "500m", memory: "256Mi" } });
  });

  it("writes CPUs and memory in the canonical form the API server reads them back in (1024 MiB as 1Gi, two cores as 2)", () => {
    expect([cpuQuantity(0.5), cpuQuantity(2), cpuQuantity(1.25)]).toEqual(["500m", "2", "1250m"]);
    expect([memoryQuantity(256), memoryQuantity(1024), memoryQuantity(1536), memoryQuantity(2048), memoryQuantity(1_048_576)]).toEqual([
      "256Mi",
      "1Gi",
      "1536Mi",
      "2Gi",
      "1Ti",
    ]);
  });

  it("leaves the tail of a container's log as its terminated message when it ends in error, the sidecar's and an open Pod's setup's too", () => {
    const allow = ["example.com"];
    const sidecar = { image: "agentrun-egress:0", pullPolicy: "Never", uid: 2510, gid: 2510, deadline: plan.deadline, allow, hostAddresses: [], hint: "" };
    const withSidecar = podManifest({ ...plan, recorded: { ...plan.recorded, network: { allow } }, sidecar }) as unknown as {
      spec: { containers: Array<Record<string, unknown>> };
    };
    const open = podManifest({ ...plan, recorded: { ...plan.recorded, network: "open" } }) as unknown as {
      spec: { initContainers: Array<Record<string, unknown>> };
    };
    for (const each of [c, ...withSidecar.spec.containers, ...open.spec.initContainers]) expect(each.terminationMessagePolicy).toBe("FallbackToLogsOnError");
    expect(withSidecar.spec.containers).toHaveLength(2);
    expect(open.spec.initContainers).toHaveLength(1);
  });

  it("carries its labels encoded, and the labels as given in an annotation", () => {
    expect(m.metadata).toMatchObject({ labels: { "agentrun.computer": "1", ...encodeLabels(plan.labels) }, annotations: labelsAnnotation(plan.labels) });
    expect(spec.runtimeClassName).toBeUndefined();
    expect((podManifest({ ...plan, runtimeClass: "gvisor" }) as { spec: { runtimeClassName: string } }).spec.runtimeClassName).toBe("gvisor");
  });

  it("is kept off the nodes lost now by a required node affinity, and has none when no node is lost", () => {
    expect(spec.affinity).toBeUndefined();
    expect((podManifest({ ...plan, avoidNodes: [] }) as { spec: Record<string, unknown> }).spec.affinity).toBeUndefined();
    expect((podManifest({ ...plan, avoidNodes: ["node2"] }) as { spec: Record<string, unknown> }).spec.affinity).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: "kubernetes.io/hostname", operator: "NotIn", values: ["node2"] }] }],
        },
      },
    });
  });
});

/** The manifest as the API server gives it back, running on a node. */
function running(): Pod {
  const pod = structuredClone(podManifest(plan)) as unknown as Pod;
  pod.spec!.nodeName = "node-1";
  pod.status = { phase: "Running", containerStatuses: [{ name: "computer", state: { running: { startedAt: "x" } } }] };
  return pod;
}
const want = { runtimeClass: undefined, pullPolicy: "Never" };

describe("the drift check", () => {
  it("finds nothing in the Pod as made", () => {
    expect(podDrift(running(), want)).toEqual([]);
    expect(computerState(running())).toBe("running");
  });

  it("names a label changed, removed or added by hand", () => {
    const pod = running();
    const run = encodeLabel("agentrun.run", "run:1")[0];
    pod.metadata.labels = { "agentrun.computer": "1", [run]: "other", extra: "x" };
    expect(labelDrift(pod)).toEqual([`its label ${run} reads "other", not "${encodeLabel("agentrun.run", "run:1")[1]}"`, "its label extra was added"]);
    delete pod.metadata.labels[run];
    expect(labelDrift(pod)).toContain(`its label ${run} was removed`);
  });

  it("names an image edited by hand, a capability added, and a Pod past its deadline", () => {
    const pod = running();
    (pod.spec!.containers![0] as { image: string }).image = "other:latest";
    pod.spec!.containers![0]!.securityContext!.capabilities!.add = [
      "SYS_ADMIN",
      "NET_ADMIN",
      "CHOWN",
      "DAC_OVERRIDE",
      "FOWNER",
      "SETPCAP",
      "SETUID",
      "SETGID",
      "NET_RAW",
    ];
    pod.status = { phase: "Failed", reason: "DeadlineExceeded" };
    const drift = podDrift(pod, want).join("; ");
    expect(drift).toMatch(/its image is "other:latest"/);
    expect(drift).toMatch(/adds .*NET_RAW/);
    expect(drift).toMatch(/phase Failed \(DeadlineExceeded\)/);
    expect(computerState(pod)).toBe("stopped");
  });

  it("refuses an image the node does not have, naming image", () => {
    const pod = running();
    pod.status = { phase: "Pending", containerStatuses: [{ name: "computer", state: { waiting: { reason: "ErrImageNeverPull", message: "not present" } } }] };
    expect(waitingProblem(pod)).toMatchObject({ field: "image" });
    pod.status = { phase: "Pending", containerStatuses: [{ name: "computer", state: { waiting: { reason: "ContainerCreating" } } }] };
    expect(waitingProblem(pod)).toBeUndefined();
  });
});

describe("exec", () => {
  it("asks for the command, stdin and the container in the URL", () => {
    const url = new URL(execUrl("https://h:6443", { namespace: "n", pod: "p", container: "computer" }, ["/opt/agentrun/computerd", "stdio"], true));
    expect(url.protocol).toBe("wss:");
    expect(url.pathname).toBe("/api/v1/namespaces/n/pods/p/exec");
    expect(url.searchParams.getAll("command")).toEqual(["/opt/agentrun/computerd", "stdio"]);
    expect(url.searchParams.get("stdin")).toBe("true");
  });

  it("reads the exit code from the status channel", () => {
    expect(exitOf('{"status":"Success"}')).toEqual({ code: 0 });
    expect(exitOf('{"status":"Failure","message":"exit 3","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}')).toEqual({
      code: 3,
      message: "exit 3",
    });
  });
});

describe("refusals before any API call", () => {
  it.each([
    [{ kubeconfig: kubeconfig(), namespace: "Not_A_Namespace" }, "namespace"],
    [{ kubeconfig: kubeconfig(), runtimeClass: "Bad Class" }, "runtimeClass"],
    [{ kubeconfig: kubeconfig(), user: "0:0" }, "user"],
    [{ kubeconfig: "nope: [" }, "kubeconfig"],
  ])("an option refused names it (%j)", async (options, option) => {
    const made = await providerFor("kubernetes", options);
    expect(made.ok).toBe(false);
    if (made.ok) return;
    expect(made.error.detail).toMatchObject({ kind: "option", provider: "kubernetes", option });
  });

  it("refuses a spec's bad fields together, each named", () => {
    const provider = create({ kubeconfig: kubeconfig() });
    const checked = provider.check({ image: "", lifetimeMs: 0, network: "everywhere", pids: 10, user: "0", mount: { kind: "bind", path: "/x" } } as never);
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    const fields = (checked.error.refusals ?? []).map((r) => r.field);
    expect(fields).toEqual(expect.arrayContaining(["image", "lifetimeMs", "network", "pids", "user", "mount"]));
  });

  it("refuses a label in the provider's own prefix", () => {
    const checked = create({ kubeconfig: kubeconfig() }).check({ image: "i", lifetimeMs: 1000, network: "none", labels: { "agentrun.computer/k-1": "x" } });
    expect(checked.ok).toBe(false);
  });
});
