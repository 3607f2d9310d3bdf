// The single-node cluster of scripts/kube-up.sh, as a story: kube:up (building what is not cached),
// a Pod of the computers' image made through the API server by digest, pulled from the cluster's registry,
// read back running, deleted until the API server says it is gone; a second kube:up is a no-op;
// kube:down leaves no process, link, mount, iptables chain or state folder behind, and keeps the
// kubelet's log. Skipped in words unless AGENTRUN_KUBE_TESTS=1 (npm run test:kube): a cold build
// takes half an hour.
import { execFile } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { request } from "node:https";
import { promisify } from "node:util";
import { parse } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KUBE_ASKED as asked, KUBE_SKIPPED as why, until } from "../support/kube.js";
import { ROOT } from "../support/toolchain.js";

const run = promisify(execFile);

type Kube = { kubeconfig: string; image: string; state: string };
type Reply = { status: number; body: { status?: { phase?: string; containerStatuses?: { imageID: string }[] }; spec?: { containers: { image: string }[] } } };

// One call to the API server as the kubeconfig's user, its client certificate inline.
function api(kube: Kube, method: string, path: string, body?: unknown): Promise<Reply> {
  const config = parse(readFileSync(kube.kubeconfig, "utf8"));
  const cluster = config.clusters[0].cluster;
  const user = config.users[0].user;
  const pem = (b64: string) => Buffer.from(b64, "base64");
  return new Promise((resolve, reject) => {
    const req = request(
      `${cluster.server}${path}`,
      {
        method,
        ca: pem(cluster["certificate-authority-data"]),
        cert: pem(user["client-certificate-data"]),
        key: pem(user["client-key-data"]),
        headers: { "content-type": "application/json" },
        signal: AbortSignal.timeout(10_000),
      },
      (res) => {
        let text = "";
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text || "{}") }));
      },
    );
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const kubeUp = () => run("bash", [`${ROOT}/scripts/kube-up.sh`], { cwd: ROOT, maxBuffer: 64 << 20 });
const kubeDown = () => run("bash", [`${ROOT}/scripts/kube-down.sh`], { cwd: ROOT, maxBuffer: 64 << 20 });

describe.skipIf(!asked)(asked ? "the test cluster" : `skipped: ${why}`, () => {
  let kube: Kube;
  beforeAll(async () => {
    await kubeUp();
    kube = JSON.parse(readFileSync(`${ROOT}/dist/kube.json`, "utf8"));
  }, 3_600_000);
  afterAll(async () => {
    await kubeDown();
  }, 300_000);

  it("runs a Pod of the computers' image by its digest in the cluster's registry, pulled from there, and deletes it", async () => {
    const name = "agentrun-kube-test";
    const pods = "/api/v1/namespaces/default/pods";
    expect(kube.image).toMatch(/@sha256:[0-9a-f]{64}$/);
    const pod = {
      apiVersion: "v1",
      kind: "Pod",
      metadata: { name },
      spec: {
        restartPolicy: "Never",
        automountServiceAccountToken: false,
        enableServiceLinks: false,
        terminationGracePeriodSeconds: 0,
        containers: [{ name: "main", image: kube.image, command: ["sleep", "600"] }],
      },
    };
    expect((await api(kube, "POST", pods, pod)).status).toBe(201);
    const running = await until("the Pod did not run", 120, async () => {
      const got = await api(kube, "GET", `${pods}/${name}`);
      return got.body.status?.phase === "Running" ? got.body : undefined;
    });
    expect(running.spec?.containers[0]?.image).toBe(kube.image);
    expect(running.status?.containerStatuses?.[0]?.imageID).toContain(kube.image.split("@")[1]);
    expect(kube.image).toMatch(/^10\.209\.255\.100:5000\/agentrun-base@sha256:[0-9a-f]{64}$/);
    expect((await api(kube, "DELETE", `${pods}/${name}`)).status).toBe(200);
    await until("the Pod was not gone", 60, async () => ((await api(kube, "GET", `${pods}/${name}`)).status === 404 ? true : undefined));
  }, 300_000);

  it("a second kube:up starts nothing: the cluster already answers", async () => {
    const again = await kubeUp();
    expect(again.stderr).not.toMatch(/starting|building|importing/);
  }, 120_000);

  it("kube:down leaves no process, link, mount, chain or state behind", async () => {
    await kubeDown();
    expect(existsSync(kube.state)).toBe(false);
    expect(existsSync(`${kube.state}.lock`)).toBe(false);
    expect(readFileSync(`${kube.state}.last-logs/kubelet.log`, "utf8")).toContain("SyncLoop");
    expect(existsSync(`${ROOT}/dist/kubeconfig`)).toBe(false);
    const links = (await run("ip", ["-o", "link", "show"])).stdout;
    expect(links).not.toMatch(/agentrun-kbr\d|agentrun-kube0/);
    expect(readFileSync("/proc/self/mountinfo", "utf8")).not.toContain(kube.state);
    const chains = (await run("iptables-save")).stdout;
    expect(chains).not.toMatch(/agentrun-kube|KUBE-FIREWALL|KUBE-KUBELET-CANARY/);
    expect((await run("pgrep", ["-f", kube.state]).catch(() => ({ stdout: "" }))).stdout).toBe("");
    // The registry's process and the Docker engine's trust of its CA.
    expect(existsSync(`/etc/docker/certs.d/${kube.image.split("/")[0]}`)).toBe(false);
  }, 300_000);
});
