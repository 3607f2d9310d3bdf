// A story on one shared egress proxy and one computer joined to it on the test cluster, as the
// rules and credentials tests tell it: a namespace of its own, the test's server on a web port of
// the host's side of the Pods' bridge, reached under a name the test-only seam resolves (a Pod has
// no resolver the test controls), and everything removed by exact name at the end, pass or fail.
import { randomBytes } from "node:crypto";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createTlsServer } from "node:https";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll } from "vitest";
import type { ComputerRef, Connection } from "../../src/contract/provider.js";
import { create } from "../../src/kubernetes/create.js";
import type { KubernetesProvider } from "../../src/kubernetes/provider.js";
import type { Pod } from "../../src/kubernetes/readback.js";
import { makeCa, signed } from "./engine-certs.js";
import { listenOnWebPort, must, testCluster, type TestCluster } from "./kube.js";

const POD_RANGE = "10.209.0.0/24";
const GATEWAY = "10.209.0.1";

export interface JoinedStory {
  ns: string;
  cluster: TestCluster;
  provider: KubernetesProvider;
  port: number;
  /** The proxy made, "" until then and after its release. */
  proxy: string;
  computer: ComputerRef | undefined;
  conn: Connection | undefined;
  /** A bash script run in the computer through its daemon: its stdout. */
  exec(script: string): Promise<string>;
  /** A computer made behind the proxy (of the cluster's image, or the one given) and connected; its Pod as the API server has it. */
  join(image?: string): Promise<Pod>;
  /** The joined computer's Pod now: its uid and each container's restarts, which a change of the proxy never touches. */
  podNow(): Promise<{ uid: string | undefined; restarts: number[] }>;
}

/**
 * The story's set-up and clean-up, registered in the describe it is called in; the server answers
 * each request with answer's words, and with https also over TLS on 443, its certificate for
 * upstream signed by a CA of the test's own, which the proxy is told to trust (the test seam's upstreamRoot).
 */
export function joinedStory(prefix: string, hint: string, upstream: string, answer: (req: IncomingMessage) => string, https = false): JoinedStory {
  let server: Server | undefined;
  let tlsServer: Server | undefined;
  let dir: string | undefined;
  const story = {
    ns: `agentrun-${prefix}-${randomBytes(4).toString("hex")}`,
    port: 80,
    proxy: "",
    computer: undefined,
    conn: undefined,
    async exec(script: string) {
      const r = (await story.conn!.client.call("exec.run", { argv: ["bash", "-c", script], timeoutMs: 60_000 })) as { stdout: string };
      return Buffer.from(r.stdout, "base64").toString("utf8");
    },
    async join(image?: string) {
      const ref = await story.provider.create({
        image: image ?? story.cluster.image,
        lifetimeMs: 600_000,
        network: { allow: [] },
        egress: story.proxy,
        cpus: 0.2,
        memoryMb: 128,
      });
      if (!ref.ok) throw new Error(ref.error.message);
      story.computer = ref.value;
      const c = await story.provider.connect(ref.value);
      if (!c.ok) throw new Error(c.error.message);
      story.conn = c.value;
      return (await must<Pod>(story.cluster.admin, `/api/v1/namespaces/${story.ns}/pods/${ref.value.name}`))!;
    },
    async podNow() {
      const pod = await must<Pod>(story.cluster.admin, `/api/v1/namespaces/${story.ns}/pods/${story.computer!.name}`);
      return { uid: pod?.metadata.uid, restarts: (pod?.status?.containerStatuses ?? []).map((c) => (c as { restartCount?: number }).restartCount ?? -1) };
    },
  } as unknown as JoinedStory;

  beforeAll(async () => {
    story.cluster = await testCluster();
    await must(story.cluster.admin, "/api/v1/namespaces", { method: "POST", body: { apiVersion: "v1", kind: "Namespace", metadata: { name: story.ns } } });
    server = createServer((req, res) => res.end(answer(req)));
    let upstreamRoot: string | undefined;
    if (https) {
      dir = await mkdtemp(path.join(tmpdir(), "agentrun-kube-tls-"));
      await makeCa(path.join(dir, "ca"));
      await signed(path.join(dir, "ca"), path.join(dir, "up"), `/CN=${upstream}`, `subjectAltName = DNS:${upstream}\nextendedKeyUsage = serverAuth\n`);
      upstreamRoot = await readFile(path.join(dir, "ca", "ca.pem"), "utf8");
      const [cert, key] = await Promise.all([readFile(path.join(dir, "up", "cert.pem")), readFile(path.join(dir, "up", "key.pem"))]);
      const tls = createTlsServer({ cert, key }, (req, res) => res.end(answer(req)));
      tlsServer = tls;
      await new Promise<void>((resolve, reject) => tls.once("error", reject).listen(443, "0.0.0.0", () => resolve()));
    }
    server = createServer((req, res) => res.end(answer(req)));
    story.port = await listenOnWebPort(server);
    story.provider = create({
      kubeconfig: story.cluster.text,
      namespace: story.ns,
      egress: { hint, testNetwork: { range: POD_RANGE, names: { [upstream]: GATEWAY }, ...(upstreamRoot ? { upstreamRoot } : {}) }, testOnly: true },
    });
  }, 3_600_000);

  afterAll(async () => {
    await story.conn?.close().catch(() => undefined);
    if (story.computer) await story.provider.release(story.computer, "delete");
    if (story.proxy) await story.provider.proxies.release(story.proxy);
    if (story.cluster) await must(story.cluster.admin, `/api/v1/namespaces/${story.ns}`, { method: "DELETE", gone: true });
    if (server?.listening) await new Promise((resolve) => server!.close(resolve));
    if (tlsServer?.listening) await new Promise((resolve) => tlsServer!.close(resolve));
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 300_000);

  return story;
}
