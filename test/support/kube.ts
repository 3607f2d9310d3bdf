// The test cluster as the test/kube files use it: started (npm run kube:up, a no-op when it
// answers; never stopped here), its kubeconfig and image from dist/kube.json, its admin's API, and
// a wait on what the API server reads back; a web port for the test's server; a request through a
// computer's egress proxy; the browser's image in the cluster's registry.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import { promisify } from "node:util";
import type { Connection } from "../../src/contract/provider.js";
import { KubeApi } from "../../src/kubernetes/api.js";
import { parseKubeconfig } from "../../src/kubernetes/kubeconfig.js";
import { ROOT } from "./toolchain.js";

const run = promisify(execFile);

/** Whether the kube files run: AGENTRUN_KUBE_TESTS=1 (npm run test:kube, and npm test after its kube row). */
export const KUBE_ASKED = process.env.AGENTRUN_KUBE_TESTS === "1";
export const KUBE_SKIPPED = "the test cluster: set AGENTRUN_KUBE_TESTS=1 (npm run test:kube) to build and start it";

export interface TestCluster {
  /** dist/kubeconfig's path and contents (the cluster's admin). */
  kubeconfig: string;
  text: string;
  /** The computers' image by digest in the node's store. */
  image: string;
  /** The kubectl built with the cluster. */
  kubectl: string;
  /** The RuntimeClass whose Pods run under gVisor's runsc. */
  gvisorRuntimeClass: string;
  /** The admin's API, to make and read what a test needs beside the provider. */
  admin: KubeApi;
}

/** kube:up, then the cluster as dist/kube.json names it. */
export async function testCluster(): Promise<TestCluster> {
  await run("bash", [`${ROOT}/scripts/kube-up.sh`], { cwd: ROOT, maxBuffer: 64 << 20 });
  const kube = JSON.parse(readFileSync(`${ROOT}/dist/kube.json`, "utf8")) as Omit<TestCluster, "text" | "admin">;
  const text = readFileSync(kube.kubeconfig, "utf8");
  return { ...kube, text, admin: new KubeApi(parseKubeconfig(text)) };
}

/** The Pods' range, which the test-only seam marks reachable, and the host's side of their bridge, where a test's server listens. */
export const POD_RANGE = "10.209.0.0/24";
export const GATEWAY = "10.209.0.1";

/** The browser recipe's image pushed to the cluster's registry (scripts/kube-browser-image.sh: built once, by its recipe's hash), by digest. */
export async function browserImage(): Promise<string> {
  await run("bash", [`${ROOT}/scripts/kube-browser-image.sh`], { cwd: ROOT, maxBuffer: 64 << 20 });
  return (JSON.parse(readFileSync(`${ROOT}/dist/kube-browser.json`, "utf8")) as { image: string }).image;
}

/** One admin call that must succeed (or answer 404, when gone is allowed): its body. */
export async function must<T = unknown>(
  api: KubeApi,
  path: string,
  options: { method?: "GET" | "POST" | "PATCH" | "DELETE"; body?: unknown; gone?: boolean } = {},
): Promise<T | undefined> {
  const got = await api.call<T>(path, `${options.method ?? "GET"} ${path}`, { ...options, ms: 15_000 });
  if (got.ok) return got.value;
  if (options.gone && got.error.code === "not_found") return undefined;
  throw new Error(got.error.message);
}

/** Waits until probe gives a value, up to seconds. */
export async function until<T>(what: string, seconds: number, probe: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + seconds * 1000;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > end) throw new Error(`${what} within ${seconds} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** Listens on port 80, or 443 when another test holds 80 (the proxy forwards to those two alone), on every address: the port taken. */
export async function listenOnWebPort(server: Server): Promise<number> {
  for (const p of [80, 443]) {
    const bound = await new Promise<boolean>((resolve) => server.once("error", () => resolve(false)).listen(p, "0.0.0.0", () => resolve(true)));
    if (bound) return p;
  }
  throw new Error("neither port 80 nor 443 is free for the test's server");
}

/** bash's /dev/tcp in the computer: one request (GET / unless asked) of host:port through its proxy on 127.0.0.1:3128; the status line and body. */
export async function getThroughProxy(c: Connection, host: string, port: number, ask: { method?: string; path?: string } = {}): Promise<string> {
  const url = `http://${host}${port === 80 ? "" : `:${port}`}${ask.path ?? "/"}`;
  const argv = [
    "bash",
    "-c",
    `exec 3<>/dev/tcp/127.0.0.1/3128 || exit 7; printf '${ask.method ?? "GET"} ${url} HTTP/1.1\\r\\nHost: ${host}\\r\\nContent-Length: 0\\r\\nConnection: close\\r\\n\\r\\n' >&3; timeout 10 cat <&3`,
  ];
  const r = (await c.client.call("exec.run", { argv, timeoutMs: 20_000 })) as { stdout: string };
  return Buffer.from(r.stdout, "base64").toString("utf8");
}

/** A rule of a Role: what a service account may do to which resources. */
export interface RoleRule {
  resources: string[];
  verbs: string[];
}

/** A service account in the namespace, bound to a Role of its own name that allows the rules alone (the core API group). */
export async function serviceAccountWithRole(admin: KubeApi, namespace: string, name: string, rules: RoleRule[]): Promise<void> {
  const rbac = `/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}`;
  await must(admin, `/api/v1/namespaces/${namespace}/serviceaccounts`, {
    method: "POST",
    body: { apiVersion: "v1", kind: "ServiceAccount", metadata: { name } },
  });
  await must(admin, `${rbac}/roles`, {
    method: "POST",
    body: { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name }, rules: rules.map((r) => ({ apiGroups: [""], ...r })) },
  });
  await must(admin, `${rbac}/rolebindings`, {
    method: "POST",
    body: {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [{ kind: "ServiceAccount", name, namespace }],
    },
  });
}
