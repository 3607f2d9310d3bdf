// A shared egress proxy on the test cluster through the library, as a story on one set of Pods:
// the proxy made (a ConfigMap), a join refused in words with nothing made, two computers joining
// it; each refused the test server until the list gains it; the list changed while both run, and
// both then reaching the server through their own sidecar and refused another host; the ConfigMap
// edited by hand to a list the check refuses, after which the sidecar forwards nothing, read as
// drift on the proxy and the computer, and healed by update; release refused while they run; all gone at
// the end. Everything is made in a namespace of its own and removed by exact name. The test's
// server is reached at the host's side of the Pods' bridge (network.test.ts's), in the range the
// test-only seam marks reachable. Skipped in words unless AGENTRUN_KUBE_TESTS=1.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerLabel } from "../../src/contract/labels.js";
import type { ComputerRef, Connection } from "../../src/contract/provider.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import type { KubeEgressProxies } from "../../src/kubernetes/proxies.js";
import { getThroughProxy, GATEWAY, KUBE_ASKED, KUBE_SKIPPED, listenOnWebPort, must, POD_RANGE, testCluster, type TestCluster, until } from "../support/kube.js";

const HINT = "kube-proxy test: ask the test";
const ANSWER = "hello from the proxy test's server";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a shared egress proxy on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const ns = `agentrun-kproxy-${randomBytes(4).toString("hex")}`;
  let cluster: TestCluster;
  let provider: KubernetesProvider;
  let proxies: KubeEgressProxies;
  let server: Server;
  let port = 80;
  let proxy = "";
  const made: ComputerRef[] = [];
  const open: Connection[] = [];

  const get = (c: Connection, host: string) => getThroughProxy(c, host, port);
  const pods = async () =>
    (
      (await must<{ items: Array<{ metadata: { name: string; deletionTimestamp?: string } }> }>(cluster.admin, `/api/v1/namespaces/${ns}/pods`))?.items ?? []
    ).filter((p) => !p.metadata.deletionTimestamp);

  beforeAll(async () => {
    cluster = await testCluster();
    await must(cluster.admin, "/api/v1/namespaces", { method: "POST", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } });
    server = createServer((_req, res) => res.end(ANSWER));
    port = await listenOnWebPort(server);
    provider = create({
      kubeconfig: cluster.text,
      namespace: ns,
      egress: { hint: HINT, testNetwork: { range: POD_RANGE }, testOnly: true },
    });
    proxies = provider.proxies;
  }, 3_600_000);

  afterAll(async () => {
    for (const c of open) await c.close().catch(() => undefined);
    for (const ref of made) await provider.release(ref, "delete");
    if (proxy) await proxies.release(proxy);
    if (cluster) await must(cluster.admin, `/api/v1/namespaces/${ns}`, { method: "DELETE", gone: true });
    if (server?.listening) await new Promise((resolve) => server.close(resolve));
  }, 300_000);

  it("makes the proxy as a ConfigMap and refuses a join it cannot serve, naming egress, with nothing made", async () => {
    const refused = await proxies.make({ allow: ["10.0.0.0/8"], lifetimeMs: 1_800_000 });
    expect(!refused.ok && refused.error.field).toBe("allow");
    const m = await proxies.make({ allow: ["blocked.example"], lifetimeMs: 1_800_000, labels: { team: "kproxy" } }, { owner: "the test's resource" });
    if (!m.ok) throw new Error(m.error.message);
    proxy = m.value.name;
    const cm = await must<{ data: Record<string, string>; metadata: { labels: Record<string, string> } }>(
      cluster.admin,
      `/api/v1/namespaces/${ns}/configmaps/${proxy}`,
    );
    expect(cm?.data.allow).toBe("blocked.example\n");
    // Made for an owner, it carries the owner label, and reads back with it.
    const owned = ownerLabel("the test's resource");
    expect(cm?.metadata.labels).toMatchObject(owned);
    const read = await proxies.read(proxy);
    expect(read.ok && read.value.ref.labels).toEqual({ team: "kproxy", ...owned });
    const other = await provider.create({ image: cluster.image, lifetimeMs: 600_000, network: { allow: [] }, egress: proxy, user: "2600:2600" });
    expect(!other.ok && other.error).toMatchObject({
      field: "egress",
      message: expect.stringMatching(/belongs to 2510:2510, not the computer's 2600:2600.*nothing was made/),
    });
    expect(await pods()).toEqual([]);
  }, 120_000);

  it("joins two computers, each refused the server while the list lacks it, with no drift", async () => {
    for (let i = 0; i < 2; i++) {
      const ref = await provider.create({ image: cluster.image, lifetimeMs: 600_000, network: { allow: [] }, egress: proxy, cpus: 0.2, memoryMb: 128 });
      if (!ref.ok) throw new Error(ref.error.message);
      made.push(ref.value);
      const c = await provider.connect(ref.value);
      if (!c.ok) throw new Error(c.error.message);
      open.push(c.value);
    }
    for (const [i, c] of open.entries()) {
      const read = await provider.read({ id: made[i]!.id });
      expect(read.ok && read.value.drift).toEqual([]);
      expect(read.ok && read.value.ref.spec).toMatchObject({ network: { allow: ["blocked.example"] }, egress: proxy });
      const r = await get(c, GATEWAY);
      expect(r).toMatch(/^HTTP\/1\.1 403/);
      expect(r).toContain(HINT);
    }
  }, 300_000);

  it("changes the list while both run: each reaches the server through its own sidecar, and is refused another host", async () => {
    expect(open).toHaveLength(2);
    const asked = Date.now();
    const u = await proxies.update(proxy, { allow: [`${GATEWAY}/32`] });
    if (!u.ok) throw new Error(u.error.message);
    for (const [i, c] of open.entries()) {
      await until(`${made[i]!.name} reaching the server`, 180, async () => ((await get(c, GATEWAY)).includes(ANSWER) ? true : undefined));
      console.log(`${made[i]!.name} reached the newly listed server ${((Date.now() - asked) / 1000).toFixed(1)} s after the update`);
      const r = await get(c, "blocked.example");
      expect(r).toMatch(/^HTTP\/1\.1 403/);
      const read = await provider.read({ id: made[i]!.id });
      expect(read.ok && read.value.drift).toEqual([]);
      expect(read.ok && read.value.ref.spec?.network).toEqual({ allow: [`${GATEWAY}/32`] });
    }
    // Both Pods are the ones made: the change touched no computer's life.
    expect((await pods()).map((p) => p.metadata.name).sort()).toEqual(made.map((r) => r.name).sort());
  }, 400_000);

  it("holds nothing after a hand edit the check refuses, read as drift on the proxy and its computers; update heals it", async () => {
    expect(proxy).not.toBe("");
    await must(cluster.admin, `/api/v1/namespaces/${ns}/configmaps/${proxy}`, {
      method: "PATCH",
      body: { data: { allow: `${GATEWAY}/32\n10.0.0.0/8\n` } },
    });
    // The kubelet writes it at its next sync of each Pod; a touch of the Pod makes that now (as update does).
    for (const ref of made)
      await must(cluster.admin, `/api/v1/namespaces/${ns}/pods/${ref.name}`, { method: "PATCH", body: { metadata: { annotations: { touched: "1" } } } });
    const drifted = await proxies.read(proxy);
    expect(drifted.ok && drifted.value.drift.join("; ")).toMatch(/list cannot be held \(.*10\.0\.0\.0\/8/);
    const c = open[0]!;
    await until("the sidecar forwarding nothing", 180, async () => (!(await get(c, GATEWAY)).includes(ANSWER) ? true : undefined));
    const read = await provider.read({ id: made[0]!.id });
    expect(read.ok && read.value.drift.join("; ")).toMatch(/ConfigMap holds a list check refuses/);
    const healed = await proxies.update(proxy, { allow: [`${GATEWAY}/32`] });
    expect(healed.ok).toBe(true);
    const proxyRead = await proxies.read(proxy);
    expect(proxyRead.ok && proxyRead.value.drift).toEqual([]);
    await until("the sidecar holding the list again", 180, async () => ((await get(c, GATEWAY)).includes(ANSWER) ? true : undefined));
    const again = await provider.read({ id: made[0]!.id });
    expect(again.ok && again.value.drift).toEqual([]);
  }, 400_000);

  it("refuses release while computers mount it, then releases them and it, leaving nothing", async () => {
    expect(made).toHaveLength(2);
    const refused = await proxies.release(proxy);
    expect(!refused.ok && refused.error.message).toMatch(/still serves computer-.*: release them first; nothing was removed/);
    for (const c of open.splice(0)) await c.close();
    for (const ref of made.splice(0)) expect((await provider.release(ref, "delete")).ok).toBe(true);
    expect((await proxies.release(proxy)).ok).toBe(true);
    expect(await must(cluster.admin, `/api/v1/namespaces/${ns}/configmaps/${proxy}`, { gone: true })).toBeUndefined();
    proxy = "";
    expect(await pods()).toEqual([]);
  }, 300_000);

  it("reads, updates and releases by its id the ConfigMap it made alone, never one of the same name made since", async () => {
    const m = await proxies.make({ allow: ["blocked.example"], lifetimeMs: 600_000 });
    if (!m.ok) throw new Error(m.error.message);
    const { name, id } = m.value;
    const path = `/api/v1/namespaces/${ns}/configmaps/${name}`;
    const first = await must<{ metadata: { uid: string } }>(cluster.admin, path);
    expect(id).toBe(`${name}/${first?.metadata.uid}`);
    // Deleted by hand and made again under its name, as another stack's proxy would be.
    await must(cluster.admin, path, { method: "DELETE" });
    const again = await must<{ metadata: { uid: string } }>(cluster.admin, `/api/v1/namespaces/${ns}/configmaps`, {
      method: "POST",
      body: { apiVersion: "v1", kind: "ConfigMap", metadata: { name, labels: { "agentrun.computer/egress-proxy": "1" } }, data: { allow: "other.example\n" } },
    });
    try {
      const read = await proxies.read(id!);
      expect(!read.ok && read.error).toMatchObject({
        code: "not_found",
        message: `the egress proxy ${id} is gone (no ConfigMap ${name} of uid ${first?.metadata.uid} in ${ns})`,
      });
      const updated = await proxies.update(id!, { allow: ["x.example"] });
      expect(!updated.ok && updated.error.code).toBe("not_found");
      expect((await proxies.release(id!)).ok).toBe(true);
      const kept = await must<{ metadata: { uid: string }; data: Record<string, string> }>(cluster.admin, path);
      expect(kept).toMatchObject({ metadata: { uid: again?.metadata.uid }, data: { allow: "other.example\n" } });
    } finally {
      await must(cluster.admin, path, { method: "DELETE", gone: true });
    }
  }, 60_000);
});
