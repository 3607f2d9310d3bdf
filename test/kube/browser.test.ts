// A browser on the test cluster (the provider's browser option: the browser recipe's image pushed
// to the cluster's registry by scripts/kube-browser-image.sh): a Pod whose init is computerd,
// Chromium started through it with network none, driven over the CDP URL its connection serves on
// this machine's loopback by chrome-remote-interface (a CDP client from npm, pinned, that this
// project did not write): a page navigated, an input filled, evaluated and shot; the URL refused with a
// changed secret and once its connection is closed; Chromium killed by hand read back as drift in
// words; check's refusals before anything is made; release leaves no Pod. Skipped in words unless
// AGENTRUN_KUBE_TESTS=1.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import type { ComputerRef } from "../../src/contract/provider.js";
import { driftUntil, driveForm, KILLED, killChromium, refusedChangedThenClosed, servedUrl } from "../support/browser-computer.js";
import { browserImage, KUBE_ASKED, KUBE_SKIPPED, must, testCluster, type TestCluster } from "../support/kube.js";

const PODS = "/api/v1/namespaces/default/pods";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "a browser on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const labels = { "agentrun.test/browser": `${process.pid}-${Date.now().toString(36)}` };
  let cluster: TestCluster;
  let provider: KubernetesProvider;
  let browser: ComputerRef | undefined;

  beforeAll(async () => {
    cluster = await testCluster();
    provider = create({ kubeconfig: cluster.text, browser: { image: await browserImage() } });
    const created = await provider.create({ image: "chromium", lifetimeMs: 600_000, network: "none", memoryMb: 1024, labels });
    if (!created.ok) throw new Error(`${created.error.code}: ${created.error.message}`);
    browser = created.value;
  }, 3_600_000);
  afterAll(async () => {
    if (browser) await must(cluster.admin, `${PODS}/${browser.name}`, { method: "DELETE", gone: true });
  }, 120_000);

  it("refuses at check what a browser does not take, naming the field, before any API call", () => {
    const spec = { image: "chromium", lifetimeMs: 60_000, network: "none" as const };
    expect(provider.check({ ...spec, memoryMb: 128 })).toMatchObject({ ok: false, error: { field: "memoryMb" } });
    expect(provider.check({ ...spec, workdir: "/work" })).toMatchObject({ ok: false, error: { field: "workdir" } });
    expect(provider.check({ ...spec, image: "debian" })).toMatchObject({ ok: false, error: { field: "image" } });
  });

  it("is driven over the URL its connection serves: navigate, fill, evaluate, screenshot", async () => {
    expect(browser!.spec).toMatchObject({ kind: "browser", image: "chromium", network: "none" });
    const connection = await provider.connect(browser!);
    if (!connection.ok) throw new Error(connection.error.message);
    const url = servedUrl(connection.value);
    await driveForm(url);
    await refusedChangedThenClosed(url, () => connection.value.close());
  }, 180_000);

  it("reads back clean, then Chromium killed by hand as drift in words", async () => {
    const clean = await provider.read({ id: browser!.id });
    if (!clean.ok) throw new Error(clean.error.message);
    expect(clean.value.drift).toEqual([]);
    expect(clean.value.hello?.kind).toBe("browser");
    const connection = await provider.connect(browser!);
    if (!connection.ok) throw new Error(connection.error.message);
    await killChromium(connection.value.client);
    await connection.value.close();
    const drift = await driftUntil(
      () => provider.read({ id: browser!.id }),
      (d) => KILLED.test(d),
    );
    expect(drift).toContainEqual(expect.stringMatching(KILLED));
    expect((await provider.attach({ id: browser!.id })).ok).toBe(false);
  }, 180_000);

  it("is released whole: its Pod gone, nothing carries its labels", async () => {
    const released = await provider.release(browser!, "delete");
    if (!released.ok) throw new Error(released.error.message);
    expect((await cluster.admin.call(`${PODS}/${browser!.name}`, "reading the Pod", { ms: 15_000 })).ok).toBe(false);
    const listed = await provider.list(labels);
    expect(listed.ok && listed.value).toEqual([]);
    browser = undefined;
  }, 180_000);
});
