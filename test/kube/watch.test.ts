// The API server's watch as the provider's wait uses it (KubeApi.watch, KubePods.untilRunning): a
// Pod's container seen running from the resourceVersion its create answered, and a watch the API
// server refuses answered in its words. In a namespace of its own, removed by exact name. Skipped
// in words unless AGENTRUN_KUBE_TESTS=1; starts the cluster when it is not running.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/kubernetes/readback.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster } from "../support/kube.js";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "the API server's watch" : `skipped: ${KUBE_SKIPPED}`, () => {
  const namespace = `agentrun-watch-${randomBytes(4).toString("hex")}`;
  const pods = `/api/v1/namespaces/${namespace}/pods`;
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await testCluster();
    await must(cluster.admin, "/api/v1/namespaces", { method: "POST", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } } });
  }, 3_600_000);
  afterAll(async () => {
    if (cluster) await must(cluster.admin, `/api/v1/namespaces/${namespace}`, { method: "DELETE", gone: true });
  }, 120_000);

  it("sees a Pod's container run, from the resourceVersion its create answered", async () => {
    const made = (await must(cluster.admin, pods, {
      method: "POST",
      body: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: "sleeper" },
        spec: {
          restartPolicy: "Never",
          automountServiceAccountToken: false,
          terminationGracePeriodSeconds: 1,
          containers: [
            {
              name: "c",
              image: cluster.image,
              command: ["sleep", "600"],
              securityContext: { runAsUser: 2510, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
            },
          ],
        },
      },
    })) as Pod;
    const seen: string[] = [];
    const running = await cluster.admin.watch<Pod>(
      `${pods}?watch=1&fieldSelector=${encodeURIComponent("metadata.name=sleeper")}&resourceVersion=${made.metadata.resourceVersion}`,
      "watching sleeper",
      (pod) => {
        seen.push(pod.status?.phase ?? "none");
        return pod.status?.containerStatuses?.some((c) => c.state?.running !== undefined) === true;
      },
      { ms: 120_000 },
    );
    expect(running.ok && running.value.metadata.name).toBe("sleeper");
    expect(seen.at(-1)).toBe("Running");
    await must(cluster.admin, `${pods}/sleeper`, { method: "DELETE", gone: true });
  }, 180_000);

  it("answers a watch the API server refuses in its words", async () => {
    const refused = await cluster.admin.watch(
      `${pods}?watch=1&fieldSelector=${encodeURIComponent("spec.nothing=1")}`,
      "watching by a field Pods lack",
      () => true,
      { ms: 30_000 },
    );
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error.code).toBe("invalid");
    expect(!refused.ok && refused.error.message).toMatch(/^watching by a field Pods lack: .*spec\.nothing/);
  }, 60_000);

  it("gives up at its bound", async () => {
    const t0 = Date.now();
    const waited = await cluster.admin.watch(`${pods}?watch=1`, "watching an empty namespace", () => false, { ms: 1_000 });
    expect(!waited.ok && waited.error.code).toBe("timeout");
    expect(Date.now() - t0).toBeLessThan(20_000);
  }, 60_000);
});
