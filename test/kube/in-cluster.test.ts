// In-cluster credentials on the test cluster, as a story: a service account allowed Pods and their
// exec in default; a Pod running as it, the package (this work tree, read-only) and the host's
// node mounted into the computers' image; in it, the provider with inCluster: true makes a computer,
// runs a command in it and releases it, through the token, CA and namespace Kubernetes mounted.
// The Pod is on the host's network with KUBERNETES_SERVICE_HOST/PORT set to the API server's
// loopback address: the test cluster runs no kube-proxy to route the Service's address. Everything
// made is deleted by name, pass or fail. Skipped in words unless AGENTRUN_KUBE_TESTS=1.
import { randomBytes } from "node:crypto";
import { realpathSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Pod } from "../../src/kubernetes/readback.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, serviceAccountWithRole, testCluster, until, type TestCluster } from "../support/kube.js";
import { ROOT } from "../support/toolchain.js";

const NS = "/api/v1/namespaces/default";
const RBAC = "/apis/rbac.authorization.k8s.io/v1/namespaces/default";

/** What the Pod runs: the provider from the package, in-cluster, its outcome as the termination message. */
const script = (image: string, tag: string) => `
import { writeFileSync } from "node:fs";
const { create } = await import(${JSON.stringify(`${ROOT}/dist/src/kubernetes/index.js`)});
const said = {};
try {
  const provider = create({ inCluster: true });
  const made = await provider.create({ image: ${JSON.stringify(image)}, lifetimeMs: 300000, network: "none", labels: { "in-cluster-test": ${JSON.stringify(tag)} } });
  said.create = made.ok ? made.value.name : made.error;
  if (made.ok) {
    const connection = await provider.connect(made.value);
    if (connection.ok) {
      said.exec = (await connection.value.client.call("exec.run", { argv: ["id", "-u"] })).exitCode;
      await connection.value.close();
    } else said.exec = connection.error;
    const released = await provider.release(made.value, "delete");
    said.release = released.ok ? "ok" : released.error;
  }
} catch (error) {
  said.thrown = String(error);
}
writeFileSync("/dev/termination-log", JSON.stringify(said));
`;

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "in-cluster credentials in a Pod of the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const tag = randomBytes(4).toString("hex");
  const name = `agentrun-in-cluster-${tag}`;
  let cluster: TestCluster;

  beforeAll(async () => {
    cluster = await testCluster();
  }, 3_600_000);
  afterAll(async () => {
    if (!cluster) return;
    const { admin } = cluster;
    const computers = await must<{ items: Pod[] }>(admin, `${NS}/pods?labelSelector=agentrun.computer%3D1`);
    for (const pod of computers!.items.filter((p) => p.metadata.labels?.["in-cluster-test"] === tag))
      await must(admin, `${NS}/pods/${pod.metadata.name}`, { method: "DELETE", gone: true });
    await must(admin, `${NS}/pods/${name}`, { method: "DELETE", body: { gracePeriodSeconds: 0 }, gone: true });
    await must(admin, `${RBAC}/rolebindings/${name}`, { method: "DELETE", gone: true });
    await must(admin, `${RBAC}/roles/${name}`, { method: "DELETE", gone: true });
    await must(admin, `${NS}/serviceaccounts/${name}`, { method: "DELETE", gone: true });
  }, 120_000);

  it("makes, runs in and releases a computer from inside a Pod, as the Pod's service account", async () => {
    const { admin } = cluster;
    await serviceAccountWithRole(admin, "default", name, [
      { resources: ["pods"], verbs: ["get", "list", "create", "delete"] },
      { resources: ["pods/exec"], verbs: ["get", "create"] },
    ]);
    // A work tree whose node_modules links elsewhere: that folder too, where the link points.
    const linked = realpathSync(`${ROOT}/node_modules`);
    const modules = linked.startsWith(`${ROOT}/`) ? [] : [{ name: "modules", hostPath: { path: linked, type: "Directory" } }];
    await must(admin, `${NS}/pods`, {
      method: "POST",
      body: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name },
        spec: {
          restartPolicy: "Never",
          serviceAccountName: name,
          automountServiceAccountToken: true,
          enableServiceLinks: false,
          hostNetwork: true,
          terminationGracePeriodSeconds: 0,
          activeDeadlineSeconds: 300,
          containers: [
            {
              name: "node",
              image: cluster.image,
              command: ["/usr/local/bin/node", "--input-type=module", "-e", script(cluster.image, tag)],
              env: [
                { name: "KUBERNETES_SERVICE_HOST", value: "127.0.0.1" },
                { name: "KUBERNETES_SERVICE_PORT", value: "6443" },
              ],
              volumeMounts: [
                { name: "package", mountPath: ROOT, readOnly: true },
                { name: "node", mountPath: "/usr/local/bin/node", readOnly: true },
                ...modules.map((m) => ({ name: m.name, mountPath: m.hostPath.path, readOnly: true })),
              ],
            },
          ],
          volumes: [
            { name: "package", hostPath: { path: ROOT, type: "Directory" } },
            { name: "node", hostPath: { path: process.execPath, type: "File" } },
            ...modules,
          ],
        },
      },
    });
    const ended = await until("the Pod did not end", 240, async () => {
      const pod = await must<Pod>(admin, `${NS}/pods/${name}`);
      return pod!.status?.phase === "Succeeded" || pod!.status?.phase === "Failed" ? pod : undefined;
    });
    const said = JSON.parse(ended.status?.containerStatuses?.[0]?.state?.terminated?.message ?? "{}");
    expect(said).toEqual({ create: expect.stringMatching(/^computer-[0-9a-f]{12}$/), exec: 0, release: "ok" });
  }, 300_000);
});
