// A ComputerSnapshot and a fork Computer with provider kubernetes, through the real engine on the
// test cluster: a computer prepared by a ComputerCommand (a file in its home), its snapshot in
// the cluster's registry, a fork made from the snapshot's image reading the file, preview
// --refresh clean; destroy leaves no Pod and the snapshot read back not_found. Skipped in words
// unless AGENTRUN_KUBE_TESTS=1; starts the cluster when it is not running and leaves it running.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { create } from "../../src/kubernetes/create.js";
import { testStack, type TestStack } from "../support/stack.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster } from "../support/kube.js";

const PODS = "/api/v1/namespaces/default/pods";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a snapshot and its fork in a stack, on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  let cluster: TestCluster;
  let s: TestStack;
  const names: string[] = [];
  const images: string[] = [];
  const word = `prepared-${randomBytes(6).toString("hex")}`;

  beforeAll(async () => {
    cluster = await testCluster();
    const computer = (image: string) => ({
      type: "agentrun:index:Computer",
      properties: { provider: "kubernetes", image, lifetimeMs: 600_000, cpus: 0.2, memoryMb: 256, network: "none" },
    });
    const command = (box: string, argv: string[]) => ({
      type: "agentrun:index:ComputerCommand",
      properties: { provider: "kubernetes", computer: `\${${box}.name}`, command: argv, timeoutSeconds: 60 },
    });
    s = await testStack(
      "kube-snapshot",
      {
        prepared: computer(cluster.image),
        prepare: command("prepared", ["sh", "-c", `mkdir -p /work/task && echo ${word} > /work/task/ready.txt`]),
        snap: {
          type: "agentrun:index:ComputerSnapshot",
          properties: { provider: "kubernetes", computer: "${prepared.vendorId}", note: "prepared once" },
          options: { dependsOn: ["${prepare}"] },
        },
        fork: computer("${snap.image}"),
        forkReads: command("fork", ["cat", "/work/task/ready.txt"]),
      },
      { prepared: "${prepared.name}", fork: "${fork.name}", image: "${snap.image}", forkImage: "${fork.image}", read: "${forkReads.stdout}" },
    );
    await s.stack.setConfig("agentrun:kubernetes.kubeconfig", { value: cluster.text, secret: true }, true);
  }, 3_600_000);

  afterAll(async () => {
    await s?.dispose();
    for (const name of names) await must(cluster.admin, `${PODS}/${name}`, { method: "DELETE", gone: true });
    const provider = cluster ? create({ kubeconfig: cluster.text }) : undefined;
    for (const image of images) await provider?.snapshots.remove(image);
  }, 300_000);

  test("up: the fork reads the prepared file, preview --refresh is clean; destroy leaves no Pod and no snapshot", async () => {
    const up = await s.stack.up({ color: "never" });
    names.push(String(up.outputs.prepared?.value), String(up.outputs.fork?.value));
    const image = String(up.outputs.image?.value);
    images.push(image);
    expect(image).toMatch(/^snapshot:\/\/kubernetes\/10\.209\.255\.100:5000\/agentrun-snapshot@sha256:[0-9a-f]{64}$/);
    expect(up.outputs.forkImage?.value).toBe(image);
    expect(String(up.outputs.read?.value).trim()).toBe(word);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(0);
    await s.stack.destroy({ color: "never" });
    for (const name of names) expect(await must(cluster.admin, `${PODS}/${name}`, { gone: true }), name).toBeUndefined();
    const read = await create({ kubeconfig: cluster.text }).snapshots.read(image);
    expect(read.ok ? "still there" : read.error.code).toBe("not_found");
  }, 900_000);
});
