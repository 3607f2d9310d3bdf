// runtime gvisor on Kubernetes, before any API call: offered only with a RuntimeClass named for it
// (gvisorRuntimeClass), and then with network none alone; the Pod of the runtime given that class,
// its spec recording the runtime, and a Pod recorded gvisor without the class read as runtime drift.
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { providerFor } from "../../src/providers.js";
import { create } from "../../src/kubernetes/create.js";
import { podManifest, type PodPlan } from "../../src/kubernetes/pod.js";
import { podDrift, type Pod } from "../../src/kubernetes/readback.js";
import { gvisorKernel, runtimeClassOf } from "../../src/kubernetes/runtime.js";
import type { ComputerClient } from "../../src/daemon/client.js";
import type { NetworkPolicy } from "../../src/contract/provider.js";

const kubeconfig = stringify({
  apiVersion: "v1",
  kind: "Config",
  clusters: [{ name: "c", cluster: { server: "https://127.0.0.1:6443", "certificate-authority-data": Buffer.from("CA").toString("base64") } }],
  users: [{ name: "u", user: { token: "tok" } }],
  contexts: [{ name: "ctx", context: { cluster: "c", user: "u" } }],
  "current-context": "ctx",
});

const spec = { image: "i", lifetimeMs: 60_000, runtime: "gvisor" as const };

describe("runtime gvisor on Kubernetes", () => {
  it("is refused without a RuntimeClass for it, naming the setting that gives one", () => {
    const provider = create({ kubeconfig });
    expect(provider.capabilities().runtimes).toBeUndefined();
    const checked = provider.check({ ...spec, network: "none" });
    expect(!checked.ok && checked.error.refusals).toEqual([
      {
        field: "runtime",
        message:
          "runtime gvisor needs a RuntimeClass backed by gVisor's runsc: set the Kubernetes provider's gvisorRuntimeClass to one the cluster has (kubectl get runtimeclass), or leave runtime out (runc)",
      },
    ]);
  });

  it("is offered with gvisorRuntimeClass, for network none alone", () => {
    const provider = create({ kubeconfig, gvisorRuntimeClass: "gvisor" });
    expect(provider.capabilities().runtimes).toEqual({ gvisor: { network: ["none"] } });
    expect(provider.check({ ...spec, network: "none" }).ok).toBe(true);
    for (const network of ["open", { allow: ["example.com"] }] satisfies NetworkPolicy[]) {
      const checked = provider.check({ ...spec, network });
      expect(!checked.ok && checked.error.refusals?.map((r) => r.field)).toEqual(["network"]);
      expect(!checked.ok && checked.error.message).toMatch(/under runtime gvisor is refused: a gVisor Pod's network is its runsc's configuration/);
    }
    expect(provider.check({ ...spec, runtime: "kata" as never, network: "none" }).ok).toBe(false);
  });

  it("refuses a gvisorRuntimeClass that is no RuntimeClass's name, naming it", async () => {
    const made = await providerFor("kubernetes", { kubeconfig, gvisorRuntimeClass: "Not A Class" });
    expect(!made.ok && made.error.detail).toMatchObject({ kind: "option", provider: "kubernetes", option: "gvisorRuntimeClass" });
  });

  it("gives the Pod gvisor's RuntimeClass, runc's Pods the provider's", () => {
    const o = { runtimeClass: "kata", gvisorRuntimeClass: "gvisor" };
    expect(runtimeClassOf("gvisor", o)).toBe("gvisor");
    expect(runtimeClassOf("runc", o)).toBe("kata");
    expect(runtimeClassOf(undefined, { runtimeClass: undefined, gvisorRuntimeClass: "gvisor" })).toBeUndefined();
  });
});

describe("a gvisor Pod read back", () => {
  const plan: PodPlan = {
    name: "computer-0123456789ab",
    namespace: "agents",
    deadline: "2026-12-02T12:00:00.000Z",
    lifetimeMs: 600_000,
    recorded: { image: "base", user: "2510:2510", workdir: "/work", runtime: "gvisor" },
    labels: {},
    arch: "amd64",
    runtimeClass: "gvisor",
    pullPolicy: "Never",
    waitSeconds: 150,
  };
  const running = (p: PodPlan): Pod => {
    const pod = structuredClone(podManifest(p)) as unknown as Pod;
    pod.spec!.nodeName = "node-1";
    pod.status = { phase: "Running", containerStatuses: [{ name: "computer", state: { running: { startedAt: "x" } } }] };
    return pod;
  };
  const want = { runtimeClass: "gvisor", pullPolicy: "Never" };

  it("is no drift as made, and runtime drift when made without its class (by hand)", () => {
    expect(podDrift(running(plan), want)).toEqual([]);
    expect(podDrift(running({ ...plan, runtimeClass: undefined }), want)).toEqual(['runtime: its runtimeClassName is nothing, not "gvisor"']);
  });

  const client = (procVersion: string): ComputerClient =>
    ({
      call: async () => ({ data: Buffer.from(procVersion).toString("base64"), size: procVersion.length, eof: true }),
    }) as unknown as ComputerClient;
  const GVISOR = "Linux version 4.4.0 #1 SMP Sun Jan 10 15:06:54 PST 2016\n";
  const HOST = "Linux version 6.18.0 (builder@host) #1 SMP\n";

  it("holds its kernel to not being the node's: gVisor's is none, the node's own is runtime drift", async () => {
    expect(await gvisorKernel(client(GVISOR), "node-1", "6.18.0")).toEqual({});
    const onHost = await gvisorKernel(client(HOST), "node-1", "6.18.0");
    expect(onHost.drift).toMatch(/^runtime: the computer's programs run on the host's kernel \(Linux version 6\.18\.0/);
  });

  it("notes, and does not call drift, a kernel it could not compare: the Node unreadable to the credentials", async () => {
    expect(await gvisorKernel(client(GVISOR), "node-1", undefined)).toEqual({
      note: "runtime: the computer's kernel is 4.4.0; the Node node-1's could not be read, so it was not compared",
    });
  });
});
