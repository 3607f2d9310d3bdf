// A stack of one runc and one gVisor computer on the test cluster, through the real engine: each
// kernel read from inside by a ComputerCommand (gVisor's release is not the node's, runc's is),
// the runtime read back on the Computer, preview --refresh clean, and destroy leaves no Pod.
// Skipped in words unless AGENTRUN_KUBE_TESTS=1; starts the cluster when it is not running and
// leaves it running.
import { release } from "node:os";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { testStack, type TestStack } from "../support/stack.js";
import { KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster } from "../support/kube.js";

const PODS = "/api/v1/namespaces/default/pods";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "one runc and one gVisor computer in a stack, on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  let cluster: TestCluster;
  let s: TestStack;
  const names: string[] = [];

  beforeAll(async () => {
    cluster = await testCluster();
    const computer = (runtime: string) => ({
      type: "agentrun:index:Computer",
      properties: { provider: "kubernetes", image: cluster.image, lifetimeMs: 600_000, cpus: 0.5, memoryMb: 256, network: "none", runtime },
    });
    const kernel = (box: string) => ({
      type: "agentrun:index:ComputerCommand",
      properties: { provider: "kubernetes", computer: `\${${box}.name}`, command: ["uname", "-r"], timeoutSeconds: 60 },
    });
    s = await testStack(
      "kube-runtime",
      { plain: computer("runc"), guarded: computer("gvisor"), plainKernel: kernel("plain"), guardedKernel: kernel("guarded") },
      {
        plain: "${plain.name}",
        guarded: "${guarded.name}",
        guardedRuntime: "${guarded.runtime}",
        plainKernel: "${plainKernel.stdout}",
        guardedKernel: "${guardedKernel.stdout}",
      },
    );
    await s.stack.setConfig("agentrun:kubernetes.kubeconfig", { value: cluster.text, secret: true }, true);
    await s.stack.setConfig("agentrun:kubernetes.gvisorRuntimeClass", { value: cluster.gvisorRuntimeClass }, true);
  }, 3_600_000);

  afterAll(async () => {
    await s?.dispose();
    for (const name of names) await must(cluster.admin, `${PODS}/${name}`, { method: "DELETE", gone: true });
  }, 300_000);

  test("up: each runs on its kernel, the gVisor one under the class, preview --refresh is clean; destroy leaves no Pod", async () => {
    const up = await s.stack.up({ color: "never" });
    names.push(String(up.outputs.plain?.value), String(up.outputs.guarded?.value));
    expect(up.outputs.guardedRuntime?.value).toBe("gvisor");
    // The nodes run on this machine's kernel.
    expect(String(up.outputs.plainKernel?.value).trim()).toBe(release());
    expect(String(up.outputs.guardedKernel?.value).trim()).not.toBe(release());
    const classes = await Promise.all(
      names.map(async (n) => (await must<{ spec?: { runtimeClassName?: string } }>(cluster.admin, `${PODS}/${n}`))?.spec?.runtimeClassName),
    );
    expect(classes).toEqual([undefined, cluster.gvisorRuntimeClass]);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
    expect(preview.exitCode, preview.stdout + preview.stderr).toBe(0);
    await s.stack.destroy({ color: "never" });
    for (const name of names) expect(await must(cluster.admin, `${PODS}/${name}`, { gone: true }), name).toBeUndefined();
  }, 600_000);
});
