// An EgressProxy with provider kubernetes shared by two Computers, through the real Pulumi engine
// on the test cluster, as a story: up makes the proxy (a ConfigMap) and two Pods behind it, each
// refused the test's server while the list lacks it; `pulumi up` with the server listed is an
// update of the proxy alone (the Pods are the same ones), after which a computer reaches the
// server and is still refused another host; the ConfigMap edited by hand is drift that
// `preview --refresh --expect-no-changes` names (exit 7) and `up` heals; destroy leaves no Pod
// and no ConfigMap carrying the proxy's label. In a namespace of its own, removed by exact name.
// The server is network.test.ts's: the host's side of the Pods' bridge, in the range the
// test-only seam (agentrun:kubernetes egress.testNetwork) marks reachable.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Connection } from "../../src/contract/provider.js";
import { PROXY_LABEL } from "../../src/kubernetes/constants.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import { GATEWAY, getThroughProxy, KUBE_ASKED, KUBE_SKIPPED, listenOnWebPort, must, POD_RANGE, testCluster, type TestCluster, until } from "../support/kube.js";
import { testStack, type TestStack } from "../support/stack.js";

const HINT = "kube-proxy e2e: ask the test";
const ANSWER = "hello from the proxy e2e's server";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "an EgressProxy on the test cluster, through the real engine" : `skipped: ${KUBE_SKIPPED}`, () => {
  const ns = `agentrun-kproxy-e2e-${randomBytes(4).toString("hex")}`;
  let cluster: TestCluster;
  let s: TestStack;
  let server: Server;
  let port = 80;
  let library: KubernetesProvider;
  const program = (allow: string[]) => {
    // Two objects: one written twice would be a YAML alias, which Pulumi YAML refuses.
    const computer = () => ({
      type: "agentrun:index:Computer",
      properties: { provider: "kubernetes", image: cluster.image, lifetimeMs: 900_000, cpus: 0.2, memoryMb: 128, egress: "${proxy.egress}" },
    });
    return {
      proxy: { type: "agentrun:index:EgressProxy", properties: { provider: "kubernetes", allow, lifetimeMs: 1_800_000 } },
      a: computer(),
      b: computer(),
    };
  };
  const outputs = { proxy: "${proxy.name}", a: "${a.name}", b: "${b.name}", aList: "${a.spec.network}" };
  const live = async (kind: "pods" | "configmaps", selector = "") =>
    (
      (
        await must<{ items: Array<{ metadata: { name: string; deletionTimestamp?: string } }> }>(
          cluster.admin,
          `/api/v1/namespaces/${ns}/${kind}${selector ? `?labelSelector=${encodeURIComponent(selector)}` : ""}`,
        )
      )?.items ?? []
    )
      .filter((p) => !p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name)
      .sort();
  /** One GET through a computer's 127.0.0.1:3128, on a connection of its own: the answer's text. */
  const get = async (name: string, host: string) => {
    const c = await library.connect({ id: name, name, provider: "kubernetes" });
    if (!c.ok) throw new Error(c.error.message);
    const connection: Connection = c.value;
    try {
      return await getThroughProxy(connection, host, port);
    } finally {
      await connection.close();
    }
  };

  beforeAll(async () => {
    cluster = await testCluster();
    await must(cluster.admin, "/api/v1/namespaces", { method: "POST", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } });
    server = createServer((_req, res) => res.end(ANSWER));
    port = await listenOnWebPort(server);
    const egress = { hint: HINT, testNetwork: { range: POD_RANGE }, testOnly: true };
    library = create({ kubeconfig: cluster.text, namespace: ns, egress });
    s = await testStack("kube-egress-proxy", program(["blocked.example"]), outputs);
    await s.stack.setConfig("agentrun:kubernetes", {
      value: JSON.stringify({ kubeconfig: cluster.text, namespace: ns, egress }),
      secret: true,
    });
  }, 3_600_000);

  afterAll(async () => {
    try {
      await s?.dispose();
    } finally {
      if (cluster) await must(cluster.admin, `/api/v1/namespaces/${ns}`, { method: "DELETE", gone: true });
      if (server?.listening) await new Promise((resolve) => server.close(resolve));
    }
  }, 600_000);

  it("makes the proxy, two Pods behind it and, with the list changed by up, lets them reach the server; heals a hand edit; destroys it all", async () => {
    const up = await s.stack.up({ color: "never" });
    const proxy = String(up.outputs.proxy?.value);
    const pods = [String(up.outputs.a?.value), String(up.outputs.b?.value)].sort();
    expect(proxy).toMatch(/^proxy-[0-9a-f]{12}$/);
    expect(await live("configmaps", `${PROXY_LABEL}=1`)).toEqual([proxy]);
    expect(await live("pods")).toEqual(pods);
    expect(up.outputs.aList?.value).toEqual({ allow: ["blocked.example"] });
    for (const name of pods) expect(await get(name, GATEWAY)).toMatch(/^HTTP\/1\.1 403[^]*kube-proxy e2e: ask the test/);

    // The list changed by up: an update of the proxy alone, the Pods the same ones.
    await s.program(program([`${GATEWAY}/32`]), outputs);
    const asked = Date.now();
    const changed = await s.stack.up({ color: "never" });
    expect(changed.summary.resourceChanges).toMatchObject({ update: 1 });
    expect(changed.summary.resourceChanges?.replace ?? 0).toBe(0);
    expect(await live("pods")).toEqual(pods);
    for (const name of pods) {
      await until(`${name} reaching the server`, 180, async () => ((await get(name, GATEWAY)).includes(ANSWER) ? true : undefined));
      console.log(`${name} reached the newly listed server ${((Date.now() - asked) / 1000).toFixed(1)} s after up began`);
      expect(await get(name, "blocked.example")).toMatch(/^HTTP\/1\.1 403/);
    }
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);

    // The ConfigMap edited by hand: drift the preview names, which up heals.
    await must(cluster.admin, `/api/v1/namespaces/${ns}/configmaps/${proxy}`, { method: "PATCH", body: { data: { allow: `${GATEWAY}/32\nwide.example\n` } } });
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    expect(preview.stdout + preview.stderr).toContain("wide.example");
    await s.stack.up({ color: "never", refresh: true });
    const healed = await must<{ data: Record<string, string> }>(cluster.admin, `/api/v1/namespaces/${ns}/configmaps/${proxy}`);
    expect(healed?.data.allow).toBe(`${GATEWAY}/32\n`);
    expect(await live("pods")).toEqual(pods);

    await s.stack.destroy({ color: "never" });
    expect(await live("pods")).toEqual([]);
    expect(await live("configmaps", `${PROXY_LABEL}=1`)).toEqual([]);
  }, 1_800_000);
});
