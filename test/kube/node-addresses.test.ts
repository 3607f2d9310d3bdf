// The nodes' own addresses on the test cluster: an allowlisted computer's proxy refuses the
// node's address as this-host even when its list allows it (the test-only seam marking that
// address reachable, as a public one would be), the address read from the API server's Node
// list, not given in egress.hostAddresses. The test's listener is on the node's own address,
// port 443, reached through the proxy by CONNECT. Credentials that may not list nodes (a service
// account's token, bound to the namespace) give the proxy egress.hostAddresses alone, and the
// computer's notes say so. Everything is made in a namespace of its own,
// removed by exact name. Skipped in words unless AGENTRUN_KUBE_TESTS=1; starts the cluster when
// it is not running and leaves it running.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:net";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerRef, Connection } from "../../src/contract/provider.js";
import { create } from "../../src/kubernetes/create.js";
import { parseKubeconfig } from "../../src/kubernetes/kubeconfig.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, serviceAccountWithRole, testCluster, type TestCluster } from "../support/kube.js";

const ANSWER = "the node's own listener";
const HINT = "kube node-addresses test";

/** One CONNECT to ip:443 through the proxy on 127.0.0.1:3128, and what came back. */
const connectThrough = (ip: string) => [
  "bash",
  "-c",
  `exec 3<>/dev/tcp/127.0.0.1/3128 || exit 7; printf 'CONNECT ${ip}:443 HTTP/1.1\\r\\nHost: ${ip}:443\\r\\n\\r\\n' >&3; timeout 10 cat <&3`,
];

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "the nodes' own addresses, refused by an allowlist's proxy" : `skipped: ${KUBE_SKIPPED}`, () => {
  const namespace = `agentrun-nodes-${randomBytes(4).toString("hex")}`;
  let cluster: TestCluster;
  let provider: KubernetesProvider;
  let node: string;
  let server: Server;
  let ref: ComputerRef | undefined;
  let c: Connection | undefined;

  beforeAll(async () => {
    cluster = await testCluster();
    const nodes = (await must(cluster.admin, "/api/v1/nodes")) as { items: Array<{ status: { addresses: Array<{ type: string; address: string }> } }> };
    node = nodes.items[0]!.status.addresses.find((a) => a.type === "InternalIP")!.address;
    server = createServer((socket) => socket.end(ANSWER));
    await new Promise<void>((resolve, reject) => server.once("error", reject).listen(443, node, resolve));
    await must(cluster.admin, "/api/v1/namespaces", { method: "POST", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } } });
    provider = create({
      kubeconfig: cluster.text,
      namespace,
      egress: { hint: HINT, testNetwork: { range: `${node}/32` }, testOnly: true },
    });
    const made = await provider.create({ image: cluster.image, lifetimeMs: 600_000, network: { allow: [`${node}/32`] }, cpus: 0.2, memoryMb: 128 });
    if (!made.ok) throw new Error(made.error.message);
    ref = made.value;
    const connected = await provider.connect(ref);
    if (!connected.ok) throw new Error(connected.error.message);
    c = connected.value;
  }, 3_600_000);

  afterAll(async () => {
    await c?.close().catch(() => undefined);
    if (ref) {
      const gone = await provider.release(ref, "delete");
      if (!gone.ok) throw new Error(`release of ${ref.name}: ${gone.error.message}`);
    }
    if (cluster) await must(cluster.admin, `/api/v1/namespaces/${namespace}`, { method: "DELETE", gone: true });
    if (server) await new Promise((resolve) => server.close(resolve));
  }, 300_000);

  it("gives the proxy the node's address, read from the Node list", async () => {
    const pod = (await must(cluster.admin, `/api/v1/namespaces/${namespace}/pods/${ref!.name}`)) as {
      spec: { containers: Array<{ name: string; args?: string[] }> };
    };
    const args = pod.spec.containers.find((x) => x.name === "egress")!.args ?? [];
    expect(args.some((a, i) => args[i - 1] === "--host-address" && a === node)).toBe(true);
  }, 60_000);

  it("refuses the node's address as this host's though the list allows it", async () => {
    const r = (await c!.client.call("exec.run", { argv: connectThrough(node), timeoutMs: 20_000 })) as { stdout: string };
    const out = Buffer.from(r.stdout, "base64").toString("utf8");
    expect(out).toMatch(/^HTTP\/1\.1 403/);
    expect(out).toContain("this box's own host");
    expect(out).not.toContain(ANSWER);
  }, 60_000);

  it("reads back with no drift", async () => {
    const read = await provider.read({ id: ref!.id });
    expect(read.ok && read.value.drift).toEqual([]);
    expect(read.ok && read.value.ref.notes).toBeUndefined();
  }, 120_000);

  it("with credentials that may not list nodes, gives the proxy egress.hostAddresses alone and says why in the computer's notes", async () => {
    const kubeconfig = await namespaceToken(cluster, namespace, "agentrun-no-nodes");
    const limited = create({
      kubeconfig,
      namespace,
      egress: { hint: HINT, testNetwork: { range: `${node}/32` }, testOnly: true, hostAddresses: [node] },
    });
    const made = await limited.create({ image: cluster.image, lifetimeMs: 600_000, network: { allow: [`${node}/32`] }, cpus: 0.2, memoryMb: 128 });
    if (!made.ok) throw new Error(made.error.message);
    try {
      const note = `the credentials may not list nodes, so the egress proxy refuses the 1 in egress.hostAddresses alone (${node}) as the nodes' own addresses: give egress.hostAddresses the nodes' public addresses, or let the credentials list nodes`;
      expect(made.value.notes).toEqual([note]);
      const pod = (await must(cluster.admin, `/api/v1/namespaces/${namespace}/pods/${made.value.name}`)) as {
        spec: { containers: Array<{ name: string; args?: string[] }> };
      };
      const args = pod.spec.containers.find((x) => x.name === "egress")!.args ?? [];
      expect(args.filter((a, i) => args[i - 1] === "--host-address")).toEqual([node]);
      const read = await limited.read({ id: made.value.id });
      expect(read.ok && read.value).toMatchObject({ drift: [], ref: { notes: [note] } });
    } finally {
      const gone = await limited.release(made.value, "delete");
      if (!gone.ok) throw new Error(`release of ${made.value.name}: ${gone.error.message}`);
    }
  }, 300_000);
});

/**
 * A kubeconfig of a service account made in the namespace, bound to a Role that lets it run
 * computers there and nothing more (no Node list): a short-lived token from the TokenRequest API.
 */
async function namespaceToken(cluster: TestCluster, namespace: string, name: string): Promise<string> {
  const ns = `/api/v1/namespaces/${namespace}`;
  await serviceAccountWithRole(cluster.admin, namespace, name, [
    { resources: ["pods"], verbs: ["get", "list", "watch", "create", "delete"] },
    { resources: ["pods/exec", "pods/log"], verbs: ["get", "create"] },
  ]);
  const token = (await must<{ status: { token: string } }>(cluster.admin, `${ns}/serviceaccounts/${name}/token`, {
    method: "POST",
    body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: 900 } },
  }))!.status.token;
  const admin = parseKubeconfig(cluster.text);
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: admin.server, "certificate-authority-data": Buffer.from(admin.ca!).toString("base64") } }],
    users: [{ name: "u", user: { token } }],
    contexts: [{ name: "ctx", context: { cluster: "c", user: "u", namespace } }],
    "current-context": "ctx",
  });
}
