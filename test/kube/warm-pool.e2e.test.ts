// The WarmPool with provider kubernetes through the real Pulumi engine on the test cluster: up
// makes two ready Pods; a claim by the library takes one for a run; preview --refresh shows the
// short pool (exit 7) and an up refills it with a new Pod (the claimed one never adopted back); destroy releases the ready Pods and leaves the claimed
// one to its run, which releaseOlder then releases; a template whose image nothing holds is refused at
// preview. Skipped in words unless AGENTRUN_KUBE_TESTS=1;
// starts the cluster when it is not running and leaves it running.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { releaseOlder } from "../../src/fleet/janitor.js";
import { claim, POOL_LABEL, poolReady, type Claimed } from "../../src/fleet/pool.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import { KUBE_ASKED, KUBE_SKIPPED, testCluster } from "../support/kube.js";
import { testStack, type TestStack } from "../support/stack.js";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a WarmPool on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  let s: TestStack;
  let provider: KubernetesProvider;
  let poolId = "";
  const run = `kube-e2e-pool-${randomBytes(4).toString("hex")}`;
  let claimed: Claimed | undefined;

  let kube: Awaited<ReturnType<typeof testCluster>>;

  beforeAll(async () => {
    kube = await testCluster();
    provider = create({ kubeconfig: kube.text });
    s = await testStack(
      "kube-pool",
      {
        pool: {
          type: "agentrun:index:WarmPool",
          properties: { size: 2, template: { provider: "kubernetes", image: kube.image, lifetimeMs: 1_800_000, network: "none", cpus: 0.1, memoryMb: 128 } },
        },
      },
      { poolId: "${pool.poolId}", ready: "${pool.ready}" },
    );
    await s.stack.setConfig("agentrun:kubernetes", { value: JSON.stringify({ kubeconfig: kube.text }), secret: true });
  }, 3_600_000);
  afterAll(async () => {
    await claimed?.close().catch(() => {});
    await s?.dispose();
    if (provider && poolId) {
      const left = await provider.list({ [POOL_LABEL]: poolId });
      for (const c of left.ok ? left.value : []) await provider.release(c.ref, "delete");
    }
  }, 600_000);

  it("fills, is claimed from, shows the short pool, refills, and is destroyed leaving the claimed Pod to its run", async () => {
    const up = await s.stack.up({ color: "never" });
    poolId = String(up.outputs.poolId?.value);
    expect(up.outputs.ready?.value).toBe(2);
    const taken = await claim({ provider, id: poolId }, { run, epoch: 1 });
    if (!taken.ok) throw new Error(taken.error.message);
    claimed = taken.value;
    expect(taken.value.hello.kind).toBe("linux");
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(7);
    const refilled = await s.stack.up({ color: "never", refresh: true });
    expect(refilled.outputs.ready?.value).toBe(2);
    // The refill made a new Pod: the claimed one is its run's, never taken back into its slot.
    const pods = await provider.list({ [POOL_LABEL]: poolId });
    expect(pods.ok && pods.value).toHaveLength(3);
    await s.stack.destroy({ color: "never" });
    const ready = await poolReady({ provider, id: poolId });
    expect(ready.ok && ready.value).toEqual([]);
    const theRun = await provider.list({ [POOL_LABEL]: poolId });
    expect(theRun.ok && theRun.value.map((c) => c.ref.name)).toEqual([claimed.ref.name]);
    const released = await releaseOlder(provider, run, 2);
    expect(released.ok).toBe(true);
    const after = await provider.list({ [POOL_LABEL]: poolId });
    expect(after.ok && after.value).toEqual([]);
  }, 1_800_000);

  it("refuses at preview a template whose image neither a node nor the cluster's registry holds, naming it", async () => {
    const registry = kube.image.slice(0, kube.image.indexOf("/"));
    const absent = `${registry}/agentrun-absent-${run}:1`;
    const template = { provider: "kubernetes", image: absent, lifetimeMs: 1_800_000, network: "none", cpus: 0.1, memoryMb: 128 };
    await s.program({ bad: { type: "agentrun:index:WarmPool", properties: { size: 1, template } } });
    const preview = await s.cli("preview");
    const said = preview.stdout + preview.stderr;
    expect(preview.exitCode, said).not.toBe(0);
    expect(said).toContain(`template.image: no node of the cluster holds the image ${absent}, and its registry ${registry} has no agentrun-absent-${run}:1`);
  }, 600_000);
});
