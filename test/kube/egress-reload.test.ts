// computerd egress --allow-file on the test cluster, as a shared proxy on Kubernetes would run it:
// the list in a ConfigMap mounted into the proxy's container (non-root, nothing held, a read-only
// root), the ConfigMap changed through the API server, and the proxy, still running, holding the
// new list (its log line's count and FNV-1a digest), then nothing after an edit the check refuses.
// The lag from the API server's write to the proxy's log line is the kubelet's (its ConfigMap
// sync), printed. No computer joins it: egress-proxy.test.ts is the shared proxy through the library.
// Skipped in words unless AGENTRUN_KUBE_TESTS=1; starts the cluster when it is not running.
import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listDigest as fnv64a } from "../../src/egress/list-digest.js";
import { EGRESS_ENTRYPOINT, egressImageTag } from "../../src/egress/proxy-command.js";
import { userSecurity } from "../../src/kubernetes/unprivileged.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster, until } from "../support/kube.js";
import { ROOT } from "../support/toolchain.js";

const NS = "/api/v1/namespaces/default";
const run = promisify(execFile);


describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "computerd egress --allow-file reading a ConfigMap on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const name = `agentrun-egress-reload-${randomBytes(4).toString("hex")}`;
  let cluster: TestCluster;
  /** The proxy's log through kubectl logs (the API's log subresource is text, not JSON); empty until it starts. */
  const logText = async () =>
    (await run(cluster.kubectl, ["--kubeconfig", cluster.kubeconfig, "logs", name], { timeout: 15_000 }).catch(() => ({ stdout: "" }))).stdout;
  const setList = (text: string) => must(cluster.admin, `${NS}/configmaps/${name}`, { method: "PATCH", body: { data: { allow: text } } });

  beforeAll(async () => {
    cluster = await testCluster();
    const sha = createHash("sha256")
      .update(readFileSync(`${ROOT}/dist/computerd-linux-amd64`))
      .digest("hex");
    await must(cluster.admin, `${NS}/configmaps`, {
      method: "POST",
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { allow: "pypi.org\n" } },
    });
    await must(cluster.admin, `${NS}/pods`, {
      method: "POST",
      body: {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name },
        spec: {
          restartPolicy: "Never",
          automountServiceAccountToken: false,
          containers: [
            {
              name: "egress",
              image: egressImageTag(sha),
              imagePullPolicy: "Never",
              command: [EGRESS_ENTRYPOINT],
              args: ["egress", "--socket", "/s/egress.sock", "--deadline", new Date(Date.now() + 600_000).toISOString(), "--allow-file", "/list/allow"],
              securityContext: userSecurity(2510, 2510, true),
              volumeMounts: [
                { name: "list", mountPath: "/list", readOnly: true },
                { name: "s", mountPath: "/s" },
              ],
            },
          ],
          volumes: [
            { name: "list", configMap: { name } },
            { name: "s", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } },
          ],
        },
      },
    });
  }, 3_600_000);
  afterAll(async () => {
    if (!cluster) return;
    await must(cluster.admin, `${NS}/pods/${name}`, { method: "DELETE", gone: true });
    await must(cluster.admin, `${NS}/configmaps/${name}`, { method: "DELETE", gone: true });
  }, 60_000);

  it("starts holding the ConfigMap's list, takes a new one while it runs, and holds nothing after a refused edit", async () => {
    await until("the proxy's ready line", 120, async () => ((await logText()).includes("ready on /s/egress.sock") ? true : undefined));
    expect(await logText()).toContain(`the list at /list/allow holds 1 entries (fnv64a ${fnv64a(["pypi.org"])})`);

    const asked = Date.now();
    await setList("pypi.org\n*.pythonhosted.org\n");
    const want = `holds 2 entries (fnv64a ${fnv64a(["*.pythonhosted.org", "pypi.org"])})`;
    await until("the new list held", 240, async () => ((await logText()).includes(want) ? true : undefined));
    console.log(`the proxy held the ConfigMap's new list ${((Date.now() - asked) / 1000).toFixed(1)} s after the API server took it`);

    await setList("pypi.org\n169.254.169.254/32\n");
    await until("the refused edit", 240, async () => ((await logText()).includes("so the proxy forwards nothing until it can") ? true : undefined));
    expect(await logText()).toMatch(/cannot be held \("169\.254\.169\.254\/32" is over /);
  }, 600_000);
});
