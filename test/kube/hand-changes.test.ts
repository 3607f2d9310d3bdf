// What an operator with kubectl can change on a computer's Pod, on the test cluster: its deadline
// shortened, a toleration and an annotation of ours added, its agentrun.computer label changed;
// each is read back as drift in its own words, and the computer is still released by the ref its
// create gave (its Pod's uid), while a bare name is refused as not a computer. Skipped in words
// unless AGENTRUN_KUBE_TESTS=1; starts the cluster when it is not running and leaves it running.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import type { Pod } from "../../src/kubernetes/readback.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster } from "../support/kube.js";

const PODS = "/api/v1/namespaces/default/pods";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a computer's Pod changed by hand" : `skipped: ${KUBE_SKIPPED}`, () => {
  let cluster: TestCluster;
  let provider: KubernetesProvider;
  let made: ComputerRef | undefined;

  beforeAll(async () => {
    cluster = await testCluster();
    provider = create({ kubeconfig: cluster.text });
  }, 3_600_000);
  afterAll(async () => {
    if (made) await must(cluster.admin, `${PODS}/${made.name}`, { method: "DELETE", gone: true });
  }, 120_000);

  it("reads each hand change as drift, and releases the Pod it made by its uid though its label was changed", async () => {
    const created = await provider.create({ image: cluster.image, lifetimeMs: 600_000, network: "none", cpus: 0.2, memoryMb: 128 });
    if (!created.ok) throw new Error(created.error.message);
    made = created.value;
    const path = `${PODS}/${made.name}`;
    const pod = (await must<Pod>(cluster.admin, path))!;
    expect(made.id).toBe(`${made.name}/${pod.metadata.uid}`);
    const before = await provider.read({ id: made.id });
    expect(before.ok && before.value.drift).toEqual([]);

    const deadline = pod.spec!.activeDeadlineSeconds!;
    await must(cluster.admin, path, {
      method: "PATCH",
      body: {
        metadata: { labels: { "agentrun.computer": "0" }, annotations: { "agentrun.computer/extra": "by-hand" } },
        spec: { activeDeadlineSeconds: 60, tolerations: [...(pod.spec!.tolerations ?? []), { key: "by-hand", operator: "Exists", effect: "NoSchedule" }] },
      },
    });
    const read = await provider.read({ id: made.id });
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.drift).toEqual(
      expect.arrayContaining([
        `its activeDeadlineSeconds is 60, not the ${deadline} create wrote: the kubelet would end it before its deadline`,
        'its toleration {"key":"by-hand","operator":"Exists","effect":"NoSchedule"} was added',
        "its annotation agentrun.computer/extra was added",
        'its label agentrun.computer reads "0", not "1"',
      ]),
    );

    const byName = await provider.release({ id: made.name, name: made.name, provider: "kubernetes" }, "delete");
    expect(!byName.ok && byName.error.message).toBe(`${made.name} is not a computer (no agentrun.computer=1 label), so it was not released`);
    const released = await provider.release(made, "delete");
    expect(released).toEqual({ ok: true, value: undefined });
    expect(await must(cluster.admin, path, { gone: true })).toBeUndefined();
    made = undefined;
  }, 300_000);
});
