// A fleet of ten Pods through the real Pulumi engine on the test cluster, as a story: up, spread
// by the scheduler over both nodes; one Pod
// deleted, one relabelled by hand (its agentrun.computer label too) and one's deadline shortened;
// `preview --refresh --expect-no-changes` exits 7 naming all three; up heals them (the relabelled
// Pod deleted by the uid its stack recorded); destroy leaves no Pod carrying the run's label. Skipped in words unless
// AGENTRUN_KUBE_TESTS=1 (npm run test:kube); starts the cluster when it is not running and leaves
// it running (kube:down is the cluster test's).
import { randomBytes } from "node:crypto";
import { parse, stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { KubeApi } from "../../src/kubernetes/api.js";
import { encodeLabel } from "../../src/kubernetes/labels.js";
import type { Pod } from "../../src/kubernetes/readback.js";
import { RUN_LABEL } from "../../src/contract/labels.js";
import { KUBE_ASKED, KUBE_SKIPPED, testCluster } from "../support/kube.js";
import { testStack, type TestStack } from "../support/stack.js";
import { previewRefusesWrongKey } from "../support/wrong-key.js";

const PODS = "/api/v1/namespaces/default/pods";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a fleet on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const runId = `kube-e2e:${randomBytes(4).toString("hex")}`;
  const [runKey, runValue] = encodeLabel(RUN_LABEL, runId);
  let api: KubeApi;
  let s: TestStack;
  const pods = async () => {
    const listed = await api.call<{ items: Pod[] }>(`${PODS}?labelSelector=${encodeURIComponent(`${runKey}=${runValue}`)}`, "listing", { ms: 10_000 });
    if (!listed.ok) throw new Error(listed.error.message);
    return listed.value.items.filter((p) => !p.metadata.deletionTimestamp);
  };

  beforeAll(async () => {
    const kube = await testCluster();
    const text = kube.text;
    api = kube.admin;
    s = await testStack(
      "kube-fleet",
      {
        claim: { type: "agentrun:index:RunEpoch", properties: { provider: "kubernetes", run: runId, epoch: 1 } },
        agents: {
          type: "agentrun:index:Fleet",
          properties: {
            size: 10,
            template: { provider: "kubernetes", image: kube.image, lifetimeMs: 1_800_000, network: "none", cpus: 0.1, memoryMb: 128 },
            labels: "${claim.labels}",
          },
        },
      },
      { names: "${agents.names}" },
    );
    await s.stack.setConfig("agentrun:kubernetes", { value: JSON.stringify({ kubeconfig: text }), secret: true });
  }, 3_600_000);
  afterAll(async () => {
    await s?.dispose();
  }, 600_000);

  it("with a kubeconfig whose credential the API server refuses, fails the preview before any Pod is made, naming the setting", async () => {
    // The client certificate traded for a token the API server never issued.
    const wrong = (current: unknown, planted: string) => {
      const config = parse(String(current)) as { users: Array<{ user: Record<string, unknown> }> };
      for (const u of config.users) u.user = { token: planted };
      return stringify(config);
    };
    await previewRefusesWrongKey(s, { vendor: "kubernetes", field: "kubeconfig", made: async () => (await pods()).length, wrong });
  }, 300_000);

  it("ups ten Pods over both nodes, shows one deleted, one relabelled and one's deadline shortened by hand, heals them, and destroys every one", async () => {
    await s.stack.up({ color: "never" });
    const made = await pods();
    expect(made).toHaveLength(10);
    expect(new Set(made.map((p) => p.spec?.nodeName))).toEqual(new Set(["agentrun-node", "agentrun-node2"]));
    const [gone, relabelled, shortened] = [made[0]!.metadata.name, made[1]!.metadata.name, made[2]!.metadata.name];
    const deleted = await api.call(`${PODS}/${gone}`, "deleting", { method: "DELETE", ms: 10_000 });
    expect(deleted.ok).toBe(true);
    const patched = await api.call(`${PODS}/${relabelled}`, "relabelling", {
      method: "PATCH",
      body: { metadata: { labels: { team: "by-hand", "agentrun.computer": "0" } } },
      ms: 10_000,
    });
    expect(patched.ok).toBe(true);
    const deadline = await api.call(`${PODS}/${shortened}`, "shortening", { method: "PATCH", body: { spec: { activeDeadlineSeconds: 600 } }, ms: 10_000 });
    expect(deadline.ok).toBe(true);
    const preview = await s.cli("preview", "--refresh", "--expect-no-changes", "--diff");
    expect(preview.exitCode).toBe(7);
    const said = preview.stdout + preview.stderr;
    expect(said).toContain(gone);
    expect(said).toContain(relabelled);
    expect(said).toMatch(/its activeDeadlineSeconds is 600, not the \d+ create wrote/);
    await s.stack.up({ color: "never", refresh: true });
    const healed = await pods();
    expect(healed).toHaveLength(10);
    expect(healed.every((p) => p.metadata.labels?.team === undefined)).toBe(true);
    expect(healed.map((p) => p.metadata.name)).not.toContain(shortened);
    const stray = await api.call(`${PODS}/${relabelled}`, "reading", { ms: 10_000 });
    expect(!stray.ok && stray.error.code).toBe("not_found");
    expect((await s.cli("preview", "--refresh", "--expect-no-changes")).exitCode).toBe(0);
    await s.stack.destroy({ color: "never" });
    expect(await pods()).toHaveLength(0);
  }, 1_800_000);
});
