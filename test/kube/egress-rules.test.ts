// Rules on a shared egress proxy on the test cluster, as a story on one computer: the proxy made
// with a rule (its ConfigMap's rules key), a computer joining it whose sidecar runs the rule and
// opens TLS with a CA of its own, which init puts in the computer's trust bundle; GET allowed and
// POST and another path refused in the proxy's words; a change of rules refused while it runs;
// the ConfigMap's rules changed by hand read as drift naming the host, on the proxy and the
// computer. The test's server is reached at the host's side of the Pods' bridge under a name the
// test-only seam resolves (a Pod has no resolver the test controls). Everything is made in a
// namespace of its own and removed by exact name. Skipped in words unless AGENTRUN_KUBE_TESTS=1.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerRef, Connection } from "../../src/contract/provider.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import { getThroughProxy, KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster, listenOnWebPort } from "../support/kube.js";

const POD_RANGE = "10.209.0.0/24";
const GATEWAY = "10.209.0.1";
const UP = "up.kube-rules.test";
const HINT = "kube-rules test: ask the test";
const RULE = { host: UP, methods: ["GET"], paths: ["/v1/items"] };

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "rules on a shared egress proxy on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const ns = `agentrun-krules-${randomBytes(4).toString("hex")}`;
  let cluster: TestCluster;
  let provider: KubernetesProvider;
  let server: Server;
  let port = 80;
  let proxy = "";
  let computer: ComputerRef | undefined;
  let conn: Connection | undefined;

  const ask = (method: string, path: string) => getThroughProxy(conn!, UP, port, { method, path });
  const exec = async (script: string) =>
    Buffer.from(((await conn!.client.call("exec.run", { argv: ["sh", "-c", script], timeoutMs: 20_000 })) as { stdout: string }).stdout, "base64").toString(
      "utf8",
    );

  beforeAll(async () => {
    cluster = await testCluster();
    await must(cluster.admin, "/api/v1/namespaces", { method: "POST", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } });
    server = createServer((req, res) => res.end(`${req.method} ${req.url} answered`));
    port = await listenOnWebPort(server);
    provider = create({
      kubeconfig: cluster.text,
      namespace: ns,
      egress: { hint: HINT, testNetwork: { range: POD_RANGE, names: { [UP]: GATEWAY } }, testOnly: true },
    });
  }, 3_600_000);

  afterAll(async () => {
    await conn?.close().catch(() => undefined);
    if (computer) await provider.release(computer, "delete");
    if (proxy) await provider.proxies.release(proxy);
    if (cluster) await must(cluster.admin, `/api/v1/namespaces/${ns}`, { method: "DELETE", gone: true });
    if (server?.listening) await new Promise((resolve) => server.close(resolve));
  }, 300_000);

  it("refuses a rule for a host off the list and credentials, naming the field, with nothing made", async () => {
    const off = await provider.proxies.make({ allow: [UP], rules: [{ host: "other.test", methods: ["GET"] }], lifetimeMs: 1_800_000 });
    expect(!off.ok && off.error.field).toBe("rules[0].host");
    const keyed = await provider.proxies.make({ allow: [UP], credentials: [{ host: UP, header: "X-Key", value: "k-never-shown" }], lifetimeMs: 1_800_000 });
    expect(!keyed.ok && keyed.error).toMatchObject({ field: "credentials", message: expect.not.stringContaining("k-never-shown") });
    const cms = await must<{ items: unknown[] }>(cluster.admin, `/api/v1/namespaces/${ns}/configmaps?labelSelector=agentrun.computer%2Fegress-proxy%3D1`);
    expect(cms?.items ?? []).toEqual([]);
  }, 60_000);

  it("makes the proxy with its rule in the ConfigMap, read back", async () => {
    const m = await provider.proxies.make({ allow: [UP], rules: [RULE], lifetimeMs: 1_800_000 });
    if (!m.ok) throw new Error(m.error.message);
    proxy = m.value.name;
    expect(m.value.rules).toEqual([`${UP} GET /v1/items`]);
    const cm = await must<{ data: Record<string, string> }>(cluster.admin, `/api/v1/namespaces/${ns}/configmaps/${proxy}`);
    expect(cm?.data.rules).toBe(`${UP} GET /v1/items\n`);
    const read = await provider.proxies.read(proxy);
    expect(read.ok && read.value).toMatchObject({ drift: [], ref: { rules: [`${UP} GET /v1/items`] } });
  }, 60_000);

  it("joins a computer whose sidecar runs the rule and opens TLS, its CA in the computer's trust bundle, with no drift", async () => {
    expect(proxy).not.toBe("");
    const ref = await provider.create({ image: cluster.image, lifetimeMs: 600_000, network: { allow: [] }, egress: proxy, cpus: 0.2, memoryMb: 128 });
    if (!ref.ok) throw new Error(ref.error.message);
    computer = ref.value;
    const c = await provider.connect(ref.value);
    if (!c.ok) throw new Error(c.error.message);
    conn = c.value;
    const pod = await must<{ spec: { containers: Array<{ name: string; args?: string[]; env?: unknown[] }> } }>(
      cluster.admin,
      `/api/v1/namespaces/${ns}/pods/${ref.value.name}`,
    );
    const args = pod?.spec.containers.find((x) => x.name === "egress")?.args ?? [];
    expect(args.join(" ")).toContain(`--rule ${UP} GET /v1/items`);
    expect(args.join(" ")).toContain("--ca-file /opt/agentrun/egress/ca.pem");
    expect((await provider.read({ id: ref.value.id })).ok && (await provider.read({ id: ref.value.id }))).toMatchObject({ value: { drift: [] } });
    // A request through the relay makes init's bundle: the image's roots and the proxy's CA.
    expect(await ask("GET", "/v1/items")).toContain("GET /v1/items answered");
    const ca = (await exec("cat /opt/agentrun/egress/ca.pem")).trim();
    expect(ca).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const bundle = await exec('printenv SSL_CERT_FILE; cat "$SSL_CERT_FILE"');
    expect(bundle.split("\n")[0]).toBe("/run/agentrun/egress-trust.pem");
    expect(bundle).toContain(ca);
  }, 300_000);

  it("allows GET on the rule's path and refuses POST and another path in the proxy's words", async () => {
    expect(conn).toBeDefined();
    expect(await ask("GET", "/v1/items/7")).toMatch(/^HTTP\/1\.1 200[\s\S]*GET \/v1\/items\/7 answered/);
    const post = await ask("POST", "/v1/items");
    expect(post).toMatch(/^HTTP\/1\.1 403/);
    expect(post).toContain(`POST /v1/items is not allowed for ${UP} on this box's network list: ${HINT}`);
    expect(post).not.toContain("answered");
    expect(await ask("GET", "/v2")).toContain(`GET /v2 is not allowed for ${UP}`);
  }, 120_000);

  it("refuses a change of rules while the computer runs, naming rules, with nothing changed", async () => {
    expect(proxy).not.toBe("");
    const u = await provider.proxies.update(proxy, { allow: [UP], rules: [{ ...RULE, methods: ["GET", "POST"] }] });
    expect(!u.ok && u.error).toMatchObject({ code: "unsupported", field: "rules", message: expect.stringContaining(computer!.name) });
    const cm = await must<{ data: Record<string, string> }>(cluster.admin, `/api/v1/namespaces/${ns}/configmaps/${proxy}`);
    expect(cm?.data.rules).toBe(`${UP} GET /v1/items\n`);
  }, 60_000);

  it("reads rules changed by hand in the ConfigMap as drift naming the host, on the proxy and the computer", async () => {
    expect(computer).toBeDefined();
    await must(cluster.admin, `/api/v1/namespaces/${ns}/configmaps/${proxy}`, { method: "PATCH", body: { data: { rules: `${UP} GET,POST /v1/items\n` } } });
    const read = await provider.proxies.read(proxy);
    expect(read.ok && read.value.ref.rules).toEqual([`${UP} GET,POST /v1/items`]);
    const c = await provider.read({ id: computer!.id });
    expect(c.ok && c.value.drift).toEqual([expect.stringContaining(`holds other rules for ${UP} than ${computer!.name}'s sidecar runs`)]);
    // The sidecar still runs the rules it started with.
    expect(await ask("POST", "/v1/items")).toMatch(/^HTTP\/1\.1 403/);
  }, 120_000);
});
