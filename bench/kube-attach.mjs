// The daemon's connection on Kubernetes, attach against exec, on the test cluster (npm run kube:up),
// in one run, a fresh Pod a round (a stdinOnce container's stdin is taken once):
// - the Pod: the provider's own (podManifest, network none) with `stdin: true, stdinOnce: true`
//   and init given --stdio, so init serves its first client over the container's own stdio;
// - time to hello, init already up: attach (the attach subresource over a WebSocket speaking
//   v5.channel.k8s.io, hello on init's stdin) against the provider's bridge (an exec of
//   computerd stdio, the same channel protocol), in alternating order;
// - exec.run(["true"]) median over each open connection, interleaved;
// - anchors in the same rounds: `kubectl exec <pod> -- true`, and `kubectl attach -i` to a Pod of
//   the same image running cat with stdinOnce (its stdin one line, then closed);
// - the guarantees: a second client comes through exec while the attach holds stdin; after the
//   attach ends, a second attach's hello gets no answer (stdin closed); and what the container's
//   log (`kubectl logs`, the kubelet's file on the node) holds of the protocol after the attach.
// Everything is made in its own namespace (agentrun-bench-attach), removed by exact name at the
// end, and when stopped half-way (SIGINT, SIGTERM) too. Run after `npm run build`: node bench/kube-attach.mjs [rounds] [runs]
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import WebSocket from "ws";
import { authHeaders } from "../dist/src/kubernetes/api.js";
import { CONTAINER } from "../dist/src/kubernetes/constants.js";
import { BRIDGE } from "../dist/src/kubernetes/commands.js";
import { EXEC_PROTOCOL } from "../dist/src/kubernetes/exec.js";
import { podManifest } from "../dist/src/kubernetes/pod.js";
import { KubePods } from "../dist/src/kubernetes/pods.js";
import { DaemonClient } from "../dist/src/daemon/client.js";
import { onStop } from "./stop.mjs";

const rounds = Number(process.argv[2] ?? 5);
const runs = Number(process.argv[3] ?? 40);
const NAMESPACE = "agentrun-bench-attach";
const kube = JSON.parse(readFileSync(new URL("../dist/kube.json", import.meta.url), "utf8"));
const kubeconfig = readFileSync(kube.kubeconfig, "utf8");
const version = readFileSync(new URL("../dist/computerd.version", import.meta.url), "utf8").trim();
const pods = new KubePods({ kubeconfig, namespace: NAMESPACE, image: kube.image }, () => version);
const api = pods.api;
const kubectl = (input, ...args) =>
  execFileSync(kube.kubectl, ["--kubeconfig", kube.kubeconfig, "-n", NAMESPACE, ...args], { encoding: "utf8", input, stdio: ["pipe", "pipe", "pipe"] });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const must = (r, what) => {
  if (!r.ok) throw new Error(`${what}: ${r.error.message}`);
  return r.value;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The attach subresource over v5.channel.k8s.io: stdin on channel 0, stdout on 1; a DaemonClient over it. */
function attach(pod) {
  const url = new URL(`${api.server.replace(/^http/, "ws")}/api/v1/namespaces/${NAMESPACE}/pods/${pod}/attach`);
  for (const [k, v] of Object.entries({ container: CONTAINER, stdin: "true", stdout: "true", stderr: "true" })) url.searchParams.set(k, v);
  const ws = new WebSocket(url, [EXEC_PROTOCOL], { agent: must(api.agent(), "the API server's TLS"), headers: authHeaders(api.credentials) });
  return new Promise((resolve, reject) => {
    ws.once("unexpected-response", (_q, res) => reject(new Error(`attach: HTTP ${res.statusCode}`)));
    ws.once("error", reject);
    ws.once("open", async () => {
      const { PassThrough, Writable } = await import("node:stream");
      const stdout = new PassThrough();
      ws.on("message", (d) => d[0] === 1 && stdout.write(d.subarray(1)));
      ws.on("close", () => stdout.end());
      const stdin = new Writable({
        write: (chunk, _e, cb) => (ws.readyState === WebSocket.OPEN ? ws.send(Buffer.concat([Buffer.from([0]), chunk]), cb) : cb()),
        final: (cb) => (ws.readyState === WebSocket.OPEN ? ws.send(Buffer.from([255, 0]), cb) : cb()),
      });
      const client = new DaemonClient({ readable: stdout, writable: stdin });
      resolve({ client, ws, close: () => ws.close() });
    });
  });
}

async function helloOver(open) {
  const t0 = performance.now();
  const c = await open();
  await c.client.call("hello", { client: "bench-kube-attach" }, { signal: AbortSignal.timeout(15_000) });
  return { c, ms: performance.now() - t0 };
}

function computerPod(name) {
  const m = podManifest({
    name,
    namespace: NAMESPACE,
    deadline: new Date(Date.now() + 600_000).toISOString(),
    lifetimeMs: 600_000,
    recorded: { image: kube.image, user: "2510:2510", workdir: "/work" },
    labels: { "agentrun.bench": "kube-attach" },
    arch: "amd64",
    waitSeconds: 60,
  });
  const c = m.spec.containers[0];
  c.command.push("--stdio");
  Object.assign(c, { stdin: true, stdinOnce: true });
  return m;
}

function catPod(name) {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace: NAMESPACE, labels: { "agentrun.bench": "kube-attach" } },
    spec: {
      restartPolicy: "Never",
      automountServiceAccountToken: false,
      terminationGracePeriodSeconds: 1,
      containers: [
        {
          name: "cat",
          image: kube.image,
          command: ["cat"],
          stdin: true,
          stdinOnce: true,
          securityContext: { runAsUser: 2510, runAsGroup: 2510, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
        },
      ],
    },
  };
}

/** The Pods made and not yet deleted, each added before its create is asked. */
const live = new Set();
let madeNamespace = false;
const cleanup = onStop(async () => {
  for (const p of live) await pods.deleteAndWait(p, undefined);
  if (madeNamespace) await api.call(`/api/v1/namespaces/${NAMESPACE}`, "deleting the namespace", { method: "DELETE", ms: 10_000 });
});
madeNamespace = !(await api.call(`/api/v1/namespaces/${NAMESPACE}`, "reading the namespace", { ms: 10_000 })).ok;
if (madeNamespace)
  must(
    await api.call("/api/v1/namespaces", "making the namespace", {
      method: "POST",
      body: { apiVersion: "v1", kind: "Namespace", metadata: { name: NAMESPACE } },
      ms: 10_000,
    }),
    "namespace",
  );
const daemon = must(await pods.daemonBytes(), "the daemon");
const helloA = [];
const helloE = [];
const runA = [];
const runE = [];
const anchorExec = [];
const anchorAttach = [];
const checks = { secondViaExec: 0, stdinClosedAfter: 0, logBytes: [], logHasProtocol: 0 };
try {
  for (let i = 0; i < rounds; i += 1) {
    const name = `computer-bench-attach-${process.pid}-${i}`;
    const cat = `bench-attach-cat-${process.pid}-${i}`;
    live.add(name).add(cat);
    must(await api.call(pods.path(), "the Pod", { method: "POST", body: computerPod(name), ms: 10_000 }), "the Pod");
    must(await api.call(`/api/v1/namespaces/${NAMESPACE}/pods`, "the cat Pod", { method: "POST", body: catPod(cat), ms: 10_000 }), "cat");
    must(await pods.waitRunning(name), "running");
    must(await pods.upload(name, daemon, CONTAINER), "upload");
    // init up: its socket answers through the bridge (a throwaway connection), then both are timed.
    const probe = must(await pods.open(name, undefined, true), "init up");
    await probe.close();
    const order = i % 2 === 0 ? ["attach", "exec"] : ["exec", "attach"];
    const conns = {};
    for (const way of order) {
      const { c, ms } = await helloOver(
        way === "attach"
          ? () => attach(name)
          : async () => {
              const r = must(await pods.runner(name)(BRIDGE, { stdin: true, ms: 15_000 }), "exec");
              return { client: new DaemonClient({ readable: r.stdout, writable: r.stdin }), close: () => r.close(), exec: r };
            },
      );
      (way === "attach" ? helloA : helloE).push(ms);
      conns[way] = c;
    }
    checks.secondViaExec += 1; // the exec's hello above answered while the attach held init's stdin
    for (let k = 0; k < runs; k += 1) {
      for (const way of k % 2 === 0 ? ["attach", "exec"] : ["exec", "attach"]) {
        const t0 = performance.now();
        await conns[way].client.call("exec.run", { argv: ["true"] });
        (way === "attach" ? runA : runE).push(performance.now() - t0);
      }
    }
    let t0 = performance.now();
    kubectl(undefined, "exec", name, "-c", CONTAINER, "--", "true");
    anchorExec.push(performance.now() - t0);
    must(await pods.untilRunning(cat, "cat", () => undefined, "the cat Pod to run", undefined), "cat running");
    t0 = performance.now();
    kubectl("x\n", "attach", "-i", "-q", cat, "-c", "cat");
    anchorAttach.push(performance.now() - t0);

    // stdin closed once the first attach ends: a second attach's hello goes unanswered.
    await conns.attach.client.close().catch(() => undefined);
    conns.attach.close();
    await sleep(500);
    const again = await attach(name).catch(() => undefined);
    if (again) {
      const answered = await again.client
        .call("hello", { client: "bench-kube-attach" }, { signal: AbortSignal.timeout(3_000) })
        .then(() => true)
        .catch(() => false);
      if (!answered) checks.stdinClosedAfter += 1;
      again.close();
    } else checks.stdinClosedAfter += 1;
    await conns.exec.client.close().catch(() => undefined);
    conns.exec.close();
    // What the kubelet kept of the container's stdout: the protocol's answers, when attach carried them.
    const log = kubectl(undefined, "logs", name, "-c", CONTAINER);
    checks.logBytes.push(Buffer.byteLength(log));
    if (log.includes('"jsonrpc"')) checks.logHasProtocol += 1;

    for (const p of [name, cat]) {
      must(await pods.deleteAndWait(p, undefined), `deleting ${p}`);
      live.delete(p);
    }
  }
} finally {
  await cleanup();
}
const f = (x) => x.toFixed(1);
console.log(`load: ${execFileSync("uptime", { encoding: "utf8" }).trim()}`);
console.log(
  `time to hello (init up): attach median ${f(median(helloA))} ms, exec bridge median ${f(median(helloE))} ms; anchors kubectl attach -i median ${f(median(anchorAttach))} ms, kubectl exec true median ${f(median(anchorExec))} ms (${rounds} rounds)`,
);
console.log(`exec.run(["true"]) median: over attach ${f(median(runA))} ms, over the exec bridge ${f(median(runE))} ms (${runA.length} runs each, interleaved)`);
console.log(
  `guarantees: a second client through exec while attached ${checks.secondViaExec}/${rounds}; stdin closed after the first attach ended ${checks.stdinClosedAfter}/${rounds}; the container's log held the protocol in ${checks.logHasProtocol}/${rounds} (log sizes ${checks.logBytes.join(", ")} bytes)`,
);
