// A node lost under a fleet, through the real Pulumi engine: ten Pods over both nodes, then the
// second node's kubelet and containerd killed as a machine dies. `preview --refresh
// --expect-no-changes` exits 7 naming each computer on the lost node within a minute (from its
// lease, not after eviction); `pulumi up --refresh` (a plain up in a project with `refresh:
// always`, as the examples' are) makes them again on the live node; destroy leaves
// no Pod on either node, those bound to the lost node included. The node is started again at the
// end (kube:up starts what is not running). Skipped in words unless AGENTRUN_KUBE_TESTS=1.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster } from "../support/kube.js";
import { testStack, type TestStack } from "../support/stack.js";
import { ROOT } from "../support/toolchain.js";

const LIVE = "agentrun-node";
const LOST = "agentrun-node2";
type Pod = { metadata: { name: string; deletionTimestamp?: string }; spec: { nodeName?: string }; status?: { phase?: string } };

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a node lost under a fleet, through the real engine" : `skipped: ${KUBE_SKIPPED}`, () => {
  const namespace = `agentrun-fleetlost-${randomBytes(4).toString("hex")}`;
  let cluster: TestCluster;
  let s: TestStack;
  let state = "";
  const pods = async () =>
    ((await must<{ items: Pod[] }>(cluster.admin, `/api/v1/namespaces/${namespace}/pods`))?.items ?? []).filter((p) => !p.metadata.deletionTimestamp);

  beforeAll(async () => {
    cluster = await testCluster();
    state = (JSON.parse(readFileSync(`${ROOT}/dist/kube.json`, "utf8")) as { state: string }).state;
    await must(cluster.admin, "/api/v1/namespaces", { method: "POST", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } } });
    s = await testStack(
      "kube-node-lost",
      {
        agents: {
          type: "agentrun:index:Fleet",
          properties: {
            size: 10,
            template: { provider: "kubernetes", image: cluster.image, lifetimeMs: 1_800_000, network: "none", cpus: 0.1, memoryMb: 128 },
          },
        },
      },
      { names: "${agents.names}" },
    );
    await s.stack.setConfig("agentrun:kubernetes", { value: JSON.stringify({ kubeconfig: cluster.text, namespace }), secret: true });
  }, 3_600_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      if (cluster) await must(cluster.admin, `/api/v1/namespaces/${namespace}`, { method: "DELETE", gone: true });
      // The lost node started again, for the files after this one.
      await testCluster();
    }
  }, 900_000);

  it("names each computer on the lost node within a minute, makes them again on the live node by an up that refreshes, and destroys every Pod", async () => {
    const up = await s.cli("up", "--yes");
    expect(up.exitCode, up.stdout + up.stderr).toBe(0);
    const made = await pods();
    expect(made).toHaveLength(10);
    const onLost = made.filter((p) => p.spec.nodeName === LOST).map((p) => p.metadata.name);
    expect(onLost.length).toBeGreaterThan(0);
    expect(onLost.length).toBeLessThan(10);

    const lostAt = Date.now();
    for (const p of ["kubelet-2", "containerd-2"]) process.kill(Number(readFileSync(`${state}/run/${p}.pid`, "utf8").trim()), "SIGKILL");
    let said = "";
    for (;;) {
      const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
      said = preview.stdout + preview.stderr;
      if (preview.exitCode === 7 && onLost.every((name) => said.includes(`${name} ended: its node ${LOST} is lost`))) break;
      if (Date.now() - lostAt > 90_000)
        throw new Error(`the lost node's computers were not all named within 90 s; the last preview said:\n${said.slice(-3000)}`);
    }
    const seconds = (Date.now() - lostAt) / 1000;
    console.log(`the first preview naming every computer on the lost node ended ${seconds.toFixed(1)} s after the node was lost`);
    // Named from the node's lease, not after the Pods' eviction (five minutes on): the API still
    // says each of them runs. The time it took is a figure (bench/README.md), not held here.
    const stale = (await pods()).filter((p) => onLost.includes(p.metadata.name));
    expect(stale.map((p) => `${p.metadata.name} ${p.status?.phase}`).sort()).toEqual(onLost.map((name) => `${name} Running`).sort());

    // An up that reads back first, as every example's project asks (options: refresh: always).
    const healed = await s.cli("up", "--refresh", "--yes");
    expect(healed.exitCode, healed.stdout.slice(-3000) + healed.stderr).toBe(0);
    const now = await pods();
    const running = now.filter((p) => p.spec.nodeName === LIVE && p.status?.phase === "Running");
    expect(running.map((p) => p.metadata.name).filter((n) => onLost.includes(n))).toEqual([]);
    expect(running).toHaveLength(10);
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);

    const down = await s.cli("destroy", "--yes");
    expect(down.exitCode, down.stdout.slice(-3000) + down.stderr).toBe(0);
    expect(await pods()).toEqual([]);
  }, 1_800_000);
});
