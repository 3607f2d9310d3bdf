// A node lost under computers: four computers spread over the two nodes, then the second node's
// kubelet and containerd killed as a machine dies. Each computer on it reads back ended, in words
// naming the node, within a minute (from its lease, long before eviction); those on the live node
// read as made; release removes every one, those on the lost node deleted at once as the API allows.
// The node is started again at the end (kube:up starts what is not running). Skipped in words
// unless AGENTRUN_KUBE_TESTS=1.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerRef } from "../../src/contract/provider.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster, until } from "../support/kube.js";
import { ROOT } from "../support/toolchain.js";

const LOST = "agentrun-node2";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a node lost under computers" : `skipped: ${KUBE_SKIPPED}`, () => {
  const namespace = `agentrun-nodelost-${randomBytes(4).toString("hex")}`;
  let cluster: TestCluster;
  let provider: KubernetesProvider;
  let state = "";
  const made: ComputerRef[] = [];

  const pods = async () =>
    (
      await must<{ items: Array<{ metadata: { name: string }; spec: { nodeName?: string }; status?: { phase?: string } }> }>(
        cluster.admin,
        `/api/v1/namespaces/${namespace}/pods`,
      )
    )?.items ?? [];

  beforeAll(async () => {
    cluster = await testCluster();
    state = (JSON.parse(readFileSync(`${ROOT}/dist/kube.json`, "utf8")) as { state: string }).state;
    await must(cluster.admin, "/api/v1/namespaces", { method: "POST", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } } });
    provider = create({ kubeconfig: cluster.text, namespace });
  }, 3_600_000);

  afterAll(async () => {
    for (const ref of made) await provider.release(ref, "delete");
    if (cluster) await must(cluster.admin, `/api/v1/namespaces/${namespace}`, { method: "DELETE", gone: true });
    // The lost node started again, for the files after this one.
    await testCluster();
  }, 600_000);

  it("reads the computers on a lost node ended, naming it, within a minute, and releases every one", async () => {
    const refs = await Promise.all(
      [0, 1, 2, 3].map(() => provider.create({ image: cluster.image, lifetimeMs: 600_000, network: "none", cpus: 0.1, memoryMb: 128 })),
    );
    for (const r of refs) {
      if (!r.ok) throw new Error(r.error.message);
      made.push(r.value);
    }
    const nodeOf = new Map((await pods()).map((p) => [p.metadata.name, p.spec.nodeName]));
    const onLost = made.filter((r) => nodeOf.get(r.name) === LOST);
    const onLive = made.filter((r) => nodeOf.get(r.name) !== LOST);
    expect(onLost.length).toBeGreaterThan(0);
    expect(onLive.length).toBeGreaterThan(0);

    const lostAt = Date.now();
    for (const p of ["kubelet-2", "containerd-2"]) process.kill(Number(readFileSync(`${state}/run/${p}.pid`, "utf8").trim()), "SIGKILL");
    for (const ref of onLost) {
      const read = await until(`${ref.name} read as ended`, 90, async () => {
        const r = await provider.read({ id: ref.id });
        return r.ok && r.value.state === "stopped" ? r.value : undefined;
      });
      expect(read.drift.join("; ")).toMatch(new RegExp(`${ref.name} ended: its node ${LOST} is lost: its kubelet last renewed its lease \\d+ s ago`));
    }
    const seconds = (Date.now() - lostAt) / 1000;
    console.log(`every computer on the lost node read as ended ${seconds.toFixed(1)} s after the node was lost`);
    // Read from the node's lease, not after the Pods' eviction (five minutes on): the API still says they run.
    const stale = (await pods()).filter((p) => onLost.some((r) => r.name === p.metadata.name));
    expect(stale.map((p) => `${p.metadata.name} ${p.status?.phase}`).sort()).toEqual(onLost.map((r) => `${r.name} Running`).sort());
    for (const ref of onLive) {
      const read = await provider.read({ id: ref.id });
      expect(read.ok && { state: read.value.state, drift: read.value.drift }).toEqual({ state: "running", drift: [] });
    }

    for (const ref of made.splice(0)) expect(await provider.release(ref, "delete")).toEqual({ ok: true, value: undefined });
    expect(await pods()).toEqual([]);
  }, 600_000);
});
