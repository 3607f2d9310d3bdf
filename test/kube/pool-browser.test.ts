// A warm pool of browsers on the test cluster (the provider's browser option, the browser recipe's
// image in the cluster's registry): a pool of one filled from a browser template, claimed, hands
// out a browser at its blank page whose CDP answers at once through the claim's connection,
// driven by chrome-remote-interface (pinned, not ours), carrying the run's labels with no drift;
// the pool is empty after. Skipped in words unless AGENTRUN_KUBE_TESTS=1. The claimed Pod is
// released by its ref and the pool cleared by its label, pass or fail.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_LABEL } from "../../src/contract/labels.js";
import { claim, clearPool, fillPool, poolReady, type Claimed } from "../../src/fleet/pool.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import { claimedPages } from "../support/browser-computer.js";
import { browserImage, KUBE_ASKED, KUBE_SKIPPED, testCluster } from "../support/kube.js";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a warm pool of browsers on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  let provider: KubernetesProvider;
  const id = `pool-${randomBytes(8).toString("hex")}`;
  const run = `kube-pool-browser-${randomBytes(4).toString("hex")}`;
  let claimed: Claimed | undefined;

  beforeAll(async () => {
    const cluster = await testCluster();
    provider = create({ kubeconfig: cluster.text, browser: { image: await browserImage() } });
    const filled = await fillPool({ provider, id }, { image: "chromium", lifetimeMs: 600_000, network: "none", memoryMb: 1024 }, 1);
    expect(filled.ok ? filled.value : filled.error).toHaveLength(1);
  }, 600_000);
  afterAll(async () => {
    await claimed?.close().catch(() => {});
    if (!provider) return;
    if (claimed) await provider.release(claimed.ref, "delete");
    const cleared = await clearPool({ provider, id });
    if (!cleared.ok) throw new Error(cleared.error.message);
  }, 300_000);

  it("hands out a browser at its blank page, CDP answering through the claim's connection, with the run's labels and no drift", async () => {
    const taken = await claim({ provider, id }, { run, epoch: 1 });
    if (!taken.ok) throw new Error(taken.error.message);
    claimed = taken.value;
    expect(claimed.hello.kind).toBe("browser");
    expect(await claimedPages(claimed)).toEqual({ product: expect.stringMatching(/^(Headless)?Chrome\//), urls: ["about:blank"] });
    const read = await provider.read({ id: claimed.ref.id });
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.drift).toEqual([]);
    expect(read.value.labels[RUN_LABEL]).toBe(run);
    const ready = await poolReady({ provider, id });
    expect(ready.ok && ready.value).toEqual([]);
  }, 300_000);
});
