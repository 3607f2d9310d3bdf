// Snapshots and forks on the test cluster, through its registry: a computer's home taken as an
// image by digest in the registry (its config the base image's and the snapshot's labels, nothing
// of the Pod's), that image pulled by digest on each node (a Pod pinned there by nodeName), forks
// made by the provider holding the files with owner, mode and content and apart from each other,
// a take of a Pod that is not a computer and of one gone refused, an owner's second take adopting
// the first, and remove then read not_found. Skipped in words unless AGENTRUN_KUBE_TESTS=1;
// everything made is removed by its name at the end.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerClient } from "../../src/daemon/client.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import type { Snapshot } from "../../src/contract/state.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import type { Pod } from "../../src/kubernetes/readback.js";
import { imageAt, registryCall } from "../../src/kubernetes/registry.js";
import { snapshotRefOf } from "../../src/kubernetes/snapshot-image.js";
import { parseKubeconfig } from "../../src/kubernetes/kubeconfig.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster, until } from "../support/kube.js";

const PODS = "/api/v1/namespaces/default/pods";
const b64 = (s: string | Buffer) => Buffer.from(s).toString("base64");

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "snapshots and forks on Kubernetes" : `skipped: ${KUBE_SKIPPED}`, () => {
  let cluster: TestCluster;
  let provider: KubernetesProvider;
  const test = `snap-${randomBytes(6).toString("hex")}`;
  const spec = () => ({ image: cluster.image, lifetimeMs: 900_000, network: "none" as const, labels: { "agentrun-test": test }, cpus: 0.2, memoryMb: 256 });
  const computers: ComputerRef[] = [];
  const snapshots: string[] = [];
  const rawPods: string[] = [];
  let parent: ComputerRef;
  let snapshot: Snapshot;
  const files = [
    { path: "/work/task/notes.txt", mode: 0o640, data: Buffer.from(`notes of ${test}\n`) },
    { path: "/work/task/run.sh", mode: 0o750, data: Buffer.from("#!/bin/sh\necho ready\n") },
    { path: "/work/.hidden/data.bin", mode: 0o600, data: randomBytes(256 * 1024) },
  ];

  const made = async () => {
    const ref = await provider.create(spec());
    if (!ref.ok) throw new Error(ref.error.message);
    computers.push(ref.value);
    return ref.value;
  };
  const connected = async (ref: ComputerRef): Promise<ComputerClient> => {
    const c = await provider.connect(ref);
    if (!c.ok) throw new Error(c.error.message);
    return c.value.client;
  };
  /** A Pod the test makes by hand (no computer), on a node when one is named; deleted at the end. */
  const rawPod = async (name: string, container: { image: string; command: string[] }, nodeName?: string) => {
    rawPods.push(name);
    const spec = { restartPolicy: "Never", automountServiceAccountToken: false, containers: [{ name: "computer", ...container }] };
    const metadata = { name, labels: { "agentrun-test": test } };
    await must(cluster.admin, PODS, {
      method: "POST",
      body: { apiVersion: "v1", kind: "Pod", metadata, spec: { ...spec, ...(nodeName ? { nodeName } : {}) } },
    });
  };
  const podOf = async (ref: ComputerRef) => (await must<Pod>(cluster.admin, `${PODS}/${ref.name}`))!;

  beforeAll(async () => {
    cluster = await testCluster();
    provider = create({ kubeconfig: cluster.text });
    parent = await made();
    const client = await connected(parent);
    for (const f of files) await client.call("files.write", { path: f.path, data: b64(f.data), mode: f.mode, parents: true });
    // Outside the home: not the snapshot's.
    await client.call("files.write", { path: `/tmp/${test}.txt`, data: b64("scratch"), mode: 0o644 });
  }, 600_000);

  afterAll(async () => {
    for (const name of rawPods) await must(cluster.admin, `${PODS}/${name}`, { method: "DELETE", gone: true }).catch(() => {});
    for (const ref of computers) await provider?.release(ref, "delete");
    for (const image of snapshots) await provider?.snapshots.remove(image);
  }, 300_000);

  it("takes the computer's home as an image by digest in the cluster's registry, with nothing of the Pod's config", async () => {
    const taken = await provider.snapshots.take(parent, { labels: { team: "a" }, note: "prepared" });
    if (!taken.ok) throw new Error(taken.error.message);
    snapshot = taken.value;
    snapshots.push(snapshot.image);
    expect(snapshot.image).toMatch(/^snapshot:\/\/kubernetes\/10\.209\.255\.100:5000\/agentrun-snapshot@sha256:[0-9a-f]{64}$/);
    expect(snapshot.computer).toBe(parent.name);
    expect(snapshot.sizeBytes).toBeGreaterThan(256 * 1024);
    expect(snapshot.labels).toMatchObject({ team: "a", "agentrun.snapshot": "1", "agentrun.snapshot.note": "prepared" });
    const read = await provider.snapshots.read(snapshot.image);
    expect(read.ok && read.value.image).toBe(snapshot.image);
    // The config in the registry: the base image's and the snapshot's, no label, environment or deadline of the Pod.
    const at = imageAt(snapshotRefOf(snapshot.image)!)!;
    const reach = { ca: parseKubeconfig(cluster.text).ca, ms: 15_000 };
    const manifest = await registryCall(at.host, `/v2/${at.repository}/manifests/${at.reference}`, reach, {
      headers: { accept: "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json" },
    });
    const body = JSON.parse(manifest.ok ? manifest.value.body.toString() : "{}") as { config: { digest: string } };
    const config = await registryCall(at.host, `/v2/${at.repository}/blobs/${body.config.digest}`, reach);
    const text = config.ok ? config.value.body.toString() : "";
    expect(text).toContain('"agentrun.snapshot":"1"');
    for (const pods of ["agentrun.computer", "agentrun-test", test, "deadline", "2510:2510"]) expect(text).not.toContain(pods);
  }, 300_000);

  it("is pulled by digest on every node", async () => {
    const nodes = (await must<{ items: Array<{ metadata: { name: string } }> }>(cluster.admin, "/api/v1/nodes"))!.items.map((n) => n.metadata.name);
    // The test cluster has two nodes: each pulls the snapshot by digest from the registry.
    expect(nodes.length).toBeGreaterThanOrEqual(2);
    const ref = snapshotRefOf(snapshot.image)!;
    for (const node of nodes) {
      const name = `${test}-${node}`.replace(/[^a-z0-9-]/g, "-").slice(0, 60);
      await rawPod(name, { image: ref, command: ["tar", "-tvf", "/.agentrun-home.tar"] }, node);
      const done = await until(`${name} ending on ${node}`, 180, async () => {
        const pod = (await must<Pod>(cluster.admin, `${PODS}/${name}`))!;
        return pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed" ? pod : undefined;
      });
      expect(done.status?.phase).toBe("Succeeded");
      expect(done.status?.containerStatuses?.[0]?.imageID).toContain(ref.slice(ref.indexOf("@")));
      const log = await cluster.admin.call<string>(`${PODS}/${name}/log`, "the log", { ms: 15_000, text: true });
      const listed = log.ok ? log.value : "";
      expect(listed).toMatch(/task\/notes\.txt/);
      expect(listed).toMatch(/\.hidden\/data\.bin/);
      expect(listed).not.toContain(`${test}.txt`);
      expect(listed).not.toMatch(/computerd|agentrun\.sock/);
      await must(cluster.admin, `${PODS}/${name}`, { method: "DELETE", gone: true });
    }
  }, 600_000);

  it("makes forks holding the files (owner, mode, content), each apart from the other, running the snapshot by digest", async () => {
    const forks: Array<{ ref: ComputerRef; client: ComputerClient }> = [];
    for (let i = 0; i < 2; i += 1) {
      const ref = await provider.create({ ...spec(), image: snapshot.image });
      if (!ref.ok) throw new Error(ref.error.message);
      computers.push(ref.value);
      forks.push({ ref: ref.value, client: await connected(ref.value) });
    }
    const parentClient = await connected(parent);
    for (const f of forks) {
      for (const file of files) {
        const had = (await parentClient.call("files.stat", { path: file.path })) as { uid: number; gid: number; mode: number };
        const has = (await f.client.call("files.stat", { path: file.path })) as { uid: number; gid: number; mode: number };
        expect(`${has.uid}:${has.gid} ${(has.mode & 0o7777).toString(8)}`).toBe(`${had.uid}:${had.gid} ${(had.mode & 0o7777).toString(8)}`);
        const back = (await f.client.call("files.read", { path: file.path })) as { data: string };
        expect(Buffer.from(back.data, "base64").equals(file.data)).toBe(true);
      }
      const scratch = (await f.client.call("exec.run", { argv: ["test", "-e", `/tmp/${test}.txt`] })) as { exitCode: number };
      expect(scratch.exitCode).not.toBe(0);
      const pod = await podOf(f.ref);
      expect(pod.spec?.containers?.[0]?.image).toBe(snapshotRefOf(snapshot.image));
      expect(pod.status?.containerStatuses?.[0]?.imageID).toContain(snapshot.image.slice(snapshot.image.indexOf("@")));
      const read = await provider.read({ id: f.ref.id });
      expect(read.ok && read.value.drift).toEqual([]);
      expect(read.ok && read.value.ref.spec?.image).toBe(snapshot.image);
    }
    // Not removed under its forks.
    const removed = await provider.snapshots.remove(snapshot.image);
    expect(removed.ok ? "removed" : removed.error.message).toMatch(
      /^the snapshot \S+ is in use by the computers computer-\w+, computer-\w+, so it was not removed/,
    );
    await forks[0]!.client.call("files.write", { path: "/work/task/fork-0.txt", data: b64("fork 0"), mode: 0o644 });
    const seen = (await forks[1]!.client.call("exec.run", { argv: ["test", "-e", "/work/task/fork-0.txt"] })) as { exitCode: number };
    expect(seen.exitCode).not.toBe(0);
    console.log(`forks landed on ${(await Promise.all(forks.map(async (f) => (await podOf(f.ref)).spec?.nodeName))).join(", ")}`);
    for (const f of forks) expect((await provider.release(f.ref, "delete")).ok).toBe(true);
  }, 600_000);

  it("refuses a take of a Pod that is not a computer, and of a computer gone, making nothing", async () => {
    const name = `computer-${randomBytes(6).toString("hex")}`;
    await rawPod(name, { image: cluster.image, command: ["sleep", "600"] });
    const foreign = await provider.snapshots.take({ id: name, name, provider: "kubernetes" });
    expect(foreign.ok ? "taken" : foreign.error.code).toBe("refused");
    expect(foreign.ok ? "" : foreign.error.message).toBe(
      `${name} is not a computer (it has no agentrun.computer=1 label and no spec of ours), so no snapshot of it was taken`,
    );
    const gone = await made();
    const released = await provider.release(gone, "delete");
    expect(released.ok).toBe(true);
    const ofGone = await provider.snapshots.take(gone);
    expect(ofGone.ok ? "taken" : ofGone.error.code).toBe("not_found");
    expect(ofGone.ok ? "" : ofGone.error.message).toMatch(/is gone from the namespace default, so no snapshot of it was taken/);
  }, 300_000);

  it("leaves nothing the owner's tag names when a take is cut off", async () => {
    const owner = `urn:pulumi:test::${test}::agentrun:index:ComputerSnapshot::cut`;
    const reach = { ca: parseKubeconfig(cluster.text).ca, ms: 15_000 };
    // The tags that name a manifest: docker-registry may list a tag whose manifest was deleted
    // (its link kept), which names nothing a pull or a take can reach.
    const tags = async () => {
      const listed = await registryCall("10.209.255.100:5000", "/v2/agentrun-snapshot/tags/list", reach);
      const all = (JSON.parse(listed.ok ? listed.value.body.toString() : "{}") as { tags?: string[] | null }).tags ?? [];
      const naming = await Promise.all(
        all.map(async (tag) => {
          const head = await registryCall("10.209.255.100:5000", `/v2/agentrun-snapshot/manifests/${tag}`, reach, {
            method: "HEAD",
            headers: { accept: "application/vnd.oci.image.manifest.v1+json, application/vnd.docker.distribution.manifest.v2+json" },
          });
          return head.ok && head.value.status === 200 ? [tag] : [];
        }),
      );
      return naming.flat();
    };
    const before = await tags();
    for (const ms of [0, 100, 300, 600, 1000]) {
      const taken = await provider.snapshots.take(parent, { owner: `${owner}-${ms}`, signal: AbortSignal.timeout(ms) });
      if (taken.ok) {
        // Done before the cut: whole, and removed here.
        snapshots.push(taken.value.image);
        expect((await provider.snapshots.read(taken.value.image)).ok).toBe(true);
        expect((await provider.snapshots.remove(taken.value.image)).ok).toBe(true);
      } else expect([taken.error.code, taken.error.message]).toEqual(["aborted", expect.stringMatching(/nothing was made|was deleted|aborted/) as string]);
      expect(await tags()).toEqual(before);
    }
  }, 300_000);

  it("adopts an owner's earlier take of the same declaration, and remove leaves read not_found", async () => {
    const owner = `urn:pulumi:test::${test}::agentrun:index:ComputerSnapshot::s`;
    const first = await provider.snapshots.take(parent, { owner });
    if (!first.ok) throw new Error(first.error.message);
    snapshots.push(first.value.image);
    const again = await provider.snapshots.take(parent, { owner });
    expect(again.ok && again.value.image).toBe(first.value.image);
    for (const image of [first.value.image, snapshot.image]) {
      const removed = await provider.snapshots.remove(image);
      expect(removed.ok ? "removed" : removed.error.message).toBe("removed");
      const read = await provider.snapshots.read(image);
      expect(read.ok ? "read" : read.error.code).toBe("not_found");
      expect((await provider.snapshots.remove(image)).ok).toBe(true);
    }
    // The owner's tag went with its manifest: a take now makes a new one.
    const after = await provider.snapshots.take(parent, { owner });
    if (!after.ok) throw new Error(after.error.message);
    snapshots.push(after.value.image);
    expect(after.value.image).not.toBe(first.value.image);
  }, 300_000);
});
