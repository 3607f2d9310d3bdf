// Warm pools on the test cluster: a pool of three Pods filled and marked ready, five claims racing
// for it (three win, each a different Pod, by a patch under its resourceVersion; the others are
// told the pool is empty, at once), each claimed Pod carrying its run's labels with no drift and
// answering its first exec.run, a claimed Pod no longer a member, and releaseOlder ending the run's
// older epoch. Skipped in words unless AGENTRUN_KUBE_TESTS=1; starts the cluster when it is not
// running and leaves it running. Everything is removed at the end by the pool's label.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_LABEL } from "../../src/contract/labels.js";
import { releaseOlder } from "../../src/fleet/janitor.js";
import { claim, clearPool, fillPool, poolReady, type Claimed } from "../../src/fleet/pool.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import { KUBE_ASKED, KUBE_SKIPPED, testCluster, type TestCluster } from "../support/kube.js";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a warm pool of three Pods" : `skipped: ${KUBE_SKIPPED}`, () => {
  let cluster: TestCluster;
  let provider: KubernetesProvider;
  const id = `pool-${randomBytes(8).toString("hex")}`;
  const run = `kube-pool-${randomBytes(4).toString("hex")}`;
  const claimed: Claimed[] = [];

  beforeAll(async () => {
    cluster = await testCluster();
    provider = create({ kubeconfig: cluster.text });
    const filled = await fillPool({ provider, id }, { image: cluster.image, lifetimeMs: 900_000, network: "none", cpus: 0.1, memoryMb: 128 }, 3);
    expect(filled.ok ? filled.value : filled.error).toHaveLength(3);
  }, 600_000);
  afterAll(async () => {
    for (const c of claimed) await c.close().catch(() => {});
    if (provider) {
      const cleared = await clearPool({ provider, id });
      if (!cleared.ok) throw new Error(cleared.error.message);
      const left = await provider.list({ [RUN_LABEL]: run });
      for (const c of left.ok ? left.value : []) await provider.release(c.ref, "delete");
    }
  }, 300_000);

  it("gives each of three racing claims a different Pod, with the run's labels and no drift, and tells the rest the pool is empty", async () => {
    const pool = { provider, id };
    const ready = await poolReady(pool);
    expect(ready.ok && ready.value).toHaveLength(3);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => claim(pool, { run, epoch: i < 2 ? 1 : 2 })));
    for (const r of results) if (r.ok) claimed.push(r.value);
    expect(claimed).toHaveLength(3);
    expect(new Set(claimed.map((c) => c.ref.name)).size).toBe(3);
    const refused = results.flatMap((r) => (r.ok ? [] : [r.error]));
    expect(refused.map((e) => e.code)).toEqual(["not_found", "not_found"]);
    expect(refused[0]!.message).toMatch(new RegExp(`^pool ${id} has no ready computer`));
    for (const c of claimed) {
      const read = await provider.read({ id: c.ref.id });
      if (!read.ok) throw new Error(read.error.message);
      expect(read.value.drift).toEqual([]);
      expect(read.value.labels[RUN_LABEL]).toBe(run);
      const r = (await c.client.call("exec.run", { argv: ["true"], timeoutMs: 20_000 })) as { exitCode: number };
      expect(r.exitCode).toBe(0);
    }
    const members = await poolReady(pool);
    expect(members.ok && members.value).toEqual([]);
  }, 600_000);

  it("releaseOlder ends the run's computers of an older epoch, and leaves the newer", async () => {
    const epochOf = async (c: Claimed) => {
      const read = await provider.read({ id: c.ref.id });
      return read.ok ? read.value.labels["agentrun.epoch"] : "gone";
    };
    const epochs = await Promise.all(claimed.map(epochOf));
    const released = await releaseOlder(provider, run, 2);
    if (!released.ok) throw new Error(released.error.message);
    const after = await Promise.all(claimed.map(epochOf));
    expect(after).toEqual(epochs.map((e) => (e === "1" ? "gone" : e)));
  }, 300_000);
});
