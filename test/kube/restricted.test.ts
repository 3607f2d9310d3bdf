// An open computer's Pod runs nothing as root, so the API server's own Pod Security admission
// takes it where the restricted standard is enforced: a namespace labelled
// pod-security.kubernetes.io/enforce=restricted admits an open computer (which runs as its user)
// and refuses one of network none (whose init is root to enter a network of its own), in the API
// server's words, with nothing made. Skipped in words unless AGENTRUN_KUBE_TESTS=1; starts the
// cluster when it is not running and leaves it running.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster } from "../support/kube.js";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a namespace that enforces the restricted Pod Security standard" : `skipped: ${KUBE_SKIPPED}`, () => {
  const namespace = `agentrun-restricted-${randomBytes(4).toString("hex")}`;
  let cluster: TestCluster;
  let provider: KubernetesProvider;

  beforeAll(async () => {
    cluster = await testCluster();
    await must(cluster.admin, "/api/v1/namespaces", {
      method: "POST",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace, labels: { "pod-security.kubernetes.io/enforce": "restricted" } } },
    });
    provider = create({ kubeconfig: cluster.text, namespace });
  }, 3_600_000);
  afterAll(async () => {
    if (cluster) await must(cluster.admin, `/api/v1/namespaces/${namespace}`, { method: "DELETE", gone: true });
  }, 120_000);

  const pods = async () => ((await must(cluster.admin, `/api/v1/namespaces/${namespace}/pods`)) as { items: unknown[] }).items.length;

  it("admits an open computer, which runs as its user, and reads it back as made", async () => {
    const made = await provider.create({ image: cluster.image, lifetimeMs: 600_000, network: "open", cpus: 0.2, memoryMb: 128 });
    if (!made.ok) throw new Error(made.error.message);
    try {
      const read = await provider.read({ id: made.value.id });
      expect(read.ok && read.value.drift).toEqual([]);
      const c = await provider.connect(made.value);
      if (!c.ok) throw new Error(c.error.message);
      const r = (await c.value.client.call("exec.run", { argv: ["id", "-u"], timeoutMs: 20_000 })) as { stdout: string };
      await c.value.close();
      expect(Buffer.from(r.stdout, "base64").toString("utf8").trim()).toBe("2510");
    } finally {
      const gone = await provider.release(made.value, "delete");
      if (!gone.ok) throw new Error(gone.error.message);
    }
  }, 300_000);

  it("refuses a computer of network none in the API server's words, with nothing made", async () => {
    const made = await provider.create({ image: cluster.image, lifetimeMs: 600_000, network: "none", cpus: 0.2, memoryMb: 128 });
    expect(made.ok).toBe(false);
    expect(!made.ok && made.error.message).toMatch(/violates PodSecurity "restricted/);
    expect(!made.ok && made.error.message).toMatch(/nothing was made/);
    expect(await pods()).toBe(0);
  }, 120_000);
});
