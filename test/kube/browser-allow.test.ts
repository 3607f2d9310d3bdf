// An allowlisted browser on the test cluster: Chromium's every request through its Pod's egress
// sidecar (init's relay on 127.0.0.1:3128, as on Docker). The test's server is reached at the
// host's side of the Pods' bridge, in the range the test-only seam marks reachable (as
// egress-proxy.test.ts's): listed, its page loads; a name off the list is refused by the proxy,
// its words (the hint) in the page and in CDP's network events, as are a subresource and a
// WebSocket of the listed page on a name off the list; the browser reads back clean with
// its allowlist and proxy flags. Everything is made in a namespace of its own and removed by exact
// name. Skipped in words unless AGENTRUN_KUBE_TESTS=1.
import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import CDP from "chrome-remote-interface";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ComputerRef } from "../../src/contract/provider.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import { cdpPage } from "../support/browser-computer.js";
import { browserImage, GATEWAY, KUBE_ASKED, KUBE_SKIPPED, listenOnWebPort, must, POD_RANGE, testCluster, type TestCluster } from "../support/kube.js";

const HINT = "kube-browser test: ask the test";
const ANSWER = "hello from the browser test's server";

describe.skipIf(!KUBE_ASKED)(KUBE_ASKED ? "an allowlisted browser on the test cluster" : `skipped: ${KUBE_SKIPPED}`, () => {
  const ns = `agentrun-kbrowser-${randomBytes(4).toString("hex")}`;
  let cluster: TestCluster;
  let provider: KubernetesProvider;
  let server: Server;
  let port = 80;
  let browser: ComputerRef | undefined;

  beforeAll(async () => {
    cluster = await testCluster();
    await must(cluster.admin, "/api/v1/namespaces", { method: "POST", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } } });
    server = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(`<title>listed</title><p>${ANSWER}</p>`));
    port = await listenOnWebPort(server);
    provider = create({
      kubeconfig: cluster.text,
      namespace: ns,
      browser: { image: await browserImage() },
      egress: { hint: HINT, testNetwork: { range: POD_RANGE }, testOnly: true },
    });
    const created = await provider.create({ image: "chromium", lifetimeMs: 600_000, network: { allow: [`${GATEWAY}/32`] }, memoryMb: 1024 });
    if (!created.ok) throw new Error(`${created.error.code}: ${created.error.message}`);
    browser = created.value;
  }, 3_600_000);

  afterAll(async () => {
    if (browser) await provider.release(browser, "delete");
    if (cluster) await must(cluster.admin, `/api/v1/namespaces/${ns}`, { method: "DELETE", gone: true });
    if (server?.listening) await new Promise((resolve) => server.close(resolve));
  }, 300_000);

  it("loads a listed page and shows the proxy's words for a name off the list, a subresource and a WebSocket, in the page and in CDP's network events", async () => {
    const read = await provider.read({ id: browser!.id });
    expect(read.ok && read.value.drift).toEqual([]);
    expect(read.ok && read.value.ref.spec).toMatchObject({ kind: "browser", image: "chromium", network: { allow: [`${GATEWAY}/32`] } });
    const connection = await provider.connect(browser!);
    if (!connection.ok) throw new Error(connection.error.message);
    const c = await CDP({ target: connection.value.cdp!.url, local: true });
    try {
      const tab = await cdpPage(c);
      const listed = `http://${GATEWAY}${port === 80 ? "" : `:${port}`}/`;
      expect((await tab.go(listed)).text).toContain(ANSWER);
      expect((await tab.answer(listed)).status).toBe(200);
      const unlisted = `http://unlisted.egress.test${port === 80 ? "" : `:${port}`}/`;
      expect((await tab.go(unlisted)).text).toContain(HINT);
      const refused = await tab.answer(unlisted);
      expect(refused.status).toBe(403);
      expect(refused.body).toContain("unlisted.egress.test");
      // From the listed page: a subresource and a WebSocket on an unlisted host, each refused.
      await tab.go(listed);
      const image = `${unlisted}pixel.png`;
      await tab.value(`(() => { const i = new Image(); i.src = ${JSON.stringify(image)}; document.body.append(i); })()`);
      const sub = await tab.answer(image);
      expect(sub.status).toBe(403);
      expect(sub.body).toContain(HINT);
      const socket = await tab.value(
        `new Promise((resolve) => { const ws = new WebSocket(${JSON.stringify(unlisted.replace(/^http/, "ws"))}); ws.onopen = () => resolve("open"); ws.onclose = () => resolve("closed"); })`,
      );
      expect(socket).toBe("closed");
    } finally {
      await c.close();
      await connection.value.close();
    }
  }, 180_000);
});
