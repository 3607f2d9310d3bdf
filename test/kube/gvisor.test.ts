// gVisor on the test cluster (RuntimeClass gvisor, gVisor's shim over runsc): a computer made with
// runtime gvisor reads gVisor's kernel from inside, not its node's, and reads back clean as gvisor;
// the same computer's Pod made again by hand to run on runc, under a RuntimeClass that names the
// runc handler but is the one the provider takes for gVisor, is runtime drift read from its kernel.
// Skipped in words unless AGENTRUN_KUBE_TESTS=1; starts the cluster when it is not running and
// leaves it running.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { release } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import type { Pod } from "../../src/kubernetes/readback.js";
import { readKernel } from "../../src/contract/runtime.js";
import { uploadArgv } from "../../src/kits/daemon-upload/scripts.js";
import { toolchain } from "../support/toolchain.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, until, type TestCluster } from "../support/kube.js";

const PODS = "/api/v1/namespaces/default/pods";
const CLASSES = "/apis/node.k8s.io/v1/runtimeclasses";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "runtime gvisor on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const tag = `${process.pid}-${Date.now().toString(36)}`;
  // A RuntimeClass on runc's handler, given to a provider as its gVisor class: the lie the kernel read-back catches.
  const liar = `agentrun-test-runc-${tag}`;
  let cluster: TestCluster;
  let made: ComputerRef | undefined;

  beforeAll(async () => {
    cluster = await testCluster();
  }, 3_600_000);
  afterAll(async () => {
    if (made) await must(cluster.admin, `${PODS}/${made.name}`, { method: "DELETE", gone: true });
    await must(cluster.admin, `${CLASSES}/${liar}`, { method: "DELETE", gone: true });
  }, 120_000);

  it("runs a gvisor computer on gVisor's kernel, and reads a Pod of it on runc as runtime drift", async () => {
    const provider: KubernetesProvider = create({ kubeconfig: cluster.text, gvisorRuntimeClass: cluster.gvisorRuntimeClass });
    const created = await provider.create({ image: cluster.image, lifetimeMs: 600_000, network: "none", runtime: "gvisor", cpus: 0.5, memoryMb: 256 });
    if (!created.ok) throw new Error(created.error.message);
    made = created.value;
    const path = `${PODS}/${made.name}`;

    const connection = await provider.connect(made);
    if (!connection.ok) throw new Error(connection.error.message);
    const kernel = await readKernel(connection.value.client);
    await connection.value.close();
    expect(typeof kernel !== "string" && kernel.release).not.toBe(release());
    const read = await provider.read({ id: made.id });
    if (!read.ok) throw new Error(read.error.message);
    expect(read.value.drift).toEqual([]);
    expect(read.value.ref.spec?.runtime).toBe("gvisor");

    // The same Pod (name, labels, annotations: runtime gvisor recorded) made again by hand on runc.
    await must(cluster.admin, CLASSES, {
      method: "POST",
      body: { apiVersion: "node.k8s.io/v1", kind: "RuntimeClass", metadata: { name: liar }, handler: "runc" },
    });
    const pod = (await must<Pod>(cluster.admin, path))!;
    await must(cluster.admin, `${path}?gracePeriodSeconds=0`, { method: "DELETE" });
    await until(`${made.name} deleted`, 120, async () => ((await must(cluster.admin, path, { gone: true })) === undefined ? true : undefined));
    const { name, labels, annotations } = pod.metadata;
    const spec = structuredClone(pod.spec!) as NonNullable<Pod["spec"]> & { runtimeClassName?: string; nodeName?: string };
    spec.runtimeClassName = liar;
    delete spec.nodeName;
    // On runc init makes its network namespace itself, as a runc computer's does.
    const computer = spec.containers!.find((c) => c.name === "computer")!;
    computer.command = computer.command!.map((a) => (a === "--loopback-alone" ? "--own-network" : a));
    const byHand = (await must<Pod>(cluster.admin, PODS, {
      method: "POST",
      body: { apiVersion: "v1", kind: "Pod", metadata: { name, labels, annotations }, spec },
    }))!;
    made = { ...made, id: `${name}/${byHand.metadata.uid}` };
    // Its daemon, uploaded as create uploads it (the same script, through exec, once it runs).
    await until(`${name} running`, 120, async () => {
      const now = await must<Pod>(cluster.admin, path);
      return now?.status?.containerStatuses?.some((c) => c.name === "computer" && c.state?.running) ? true : undefined;
    });
    const daemon = readFileSync(toolchain().daemon.amd64);
    const upload = uploadArgv(createHash("sha256").update(daemon).digest("hex"));
    await new Promise<void>((resolve, reject) => {
      const child = execFile(cluster.kubectl, ["--kubeconfig", cluster.kubeconfig, "exec", "-i", name, "-c", "computer", "--", ...upload], (e) =>
        e ? reject(e) : resolve(),
      );
      child.stdin!.end(daemon);
    });

    const liarProvider = create({ kubeconfig: cluster.text, gvisorRuntimeClass: liar });
    // Read once its daemon said hello (its kernel is read through it).
    const drift = await until("the hand-made Pod's daemon answering a read", 120, async () => {
      const got = await liarProvider.read({ id: made!.id });
      if (!got.ok) throw new Error(got.error.message);
      return got.value.hello ? got.value.drift : undefined;
    });
    expect(drift).toContainEqual(expect.stringMatching(/^runtime: the computer's programs run on the host's kernel \(Linux version .*\), not gVisor's/));

    const released = await provider.release(made, "delete");
    expect(released).toEqual({ ok: true, value: undefined });
    expect(await must(cluster.admin, path, { gone: true })).toBeUndefined();
    made = undefined;
  }, 400_000);
});
