// Kubernetes on the test cluster (npm run kube:up), in one run, interleaved:
// - create-to-ready: KubernetesProvider.create (the cluster's checks once, the Pod made, the wait
//   until its container runs, the daemon's upload, hello over exec, the Pod read back and the
//   probe) beside its anchor, the same Pod (podManifest, its command a sleep) made with
//   `kubectl apply` + `kubectl wait --for=condition=Ready` + one `kubectl exec true`, kubectl the
//   one built from the same module;
// - exec.run(["true"]) over the established connection beside `kubectl exec <pod> -- true`.
// The computer's network is none or open (the third argument; open's Pod adds its setup container).
// Everything is made in a namespace of its own (agentrun-bench-kube, made when missing and then
// deleted); every Pod is deleted, pass or fail, and when stopped half-way (SIGINT, SIGTERM) too,
// a create then in flight awaited first. The load (uptime) is printed with the figures.
// Run after `npm run build`: node bench/kube-create.mjs [rounds] [runs] [none|open]
import { create, podManifest } from "../dist/src/kubernetes/index.js";
import { benchNamespace, kube, kubeconfigText, kubectl, uptime } from "./kube-namespace.mjs";

const rounds = Number(process.argv[2] ?? 5);
const runs = Number(process.argv[3] ?? 50);
const network = process.argv[4] ?? "none";
if (network !== "none" && network !== "open") throw new Error(`the network is none or open, not ${network}`);
const NAMESPACE = "agentrun-bench-kube";
const provider = create({ kubeconfig: kubeconfigText(), namespace: NAMESPACE });
const { mine, cleanup } = benchNamespace(NAMESPACE, provider);
console.log(`network ${network}; load before: ${uptime()}`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spec = { image: kube.image, lifetimeMs: 600_000, network };

// One create first: the cluster's checks and the daemon's bytes are once per provider and process.
const warm = await provider.create(spec);
if (!warm.ok) throw new Error(warm.error.message);
await provider.release(warm.value, "delete");

const made = [];
const bare = [];
try {
  for (let i = 0; i < rounds; i += 1) {
    let t0 = performance.now();
    const ref = await provider.create(spec);
    made.push(performance.now() - t0);
    if (!ref.ok) throw new Error(ref.error.message);
    await provider.release(ref.value, "delete");

    const name = `bench-kube-${process.pid}-${i}`;
    const manifest = podManifest({
      name,
      namespace: NAMESPACE,
      deadline: new Date(Date.now() + 600_000).toISOString(),
      lifetimeMs: 600_000,
      recorded: { image: kube.image, user: "2510:2510", workdir: "/work", network },
      labels: { "agentrun.bench": "kube-create" },
      arch: "amd64",
      waitSeconds: 1,
    });
    // The anchor's container sleeps; an open Pod keeps its setup container, which ends at once.
    manifest.spec.containers[0].command = ["sleep", "600"];
    if (network === "open") manifest.spec.initContainers[0].command = ["true"];
    mine.push(name);
    t0 = performance.now();
    kubectl(JSON.stringify(manifest), "apply", "-n", NAMESPACE, "-f", "-");
    kubectl(undefined, "wait", "-n", NAMESPACE, "--for=condition=Ready", `pod/${name}`, "--timeout=120s");
    kubectl(undefined, "exec", "-n", NAMESPACE, name, "--", "true");
    bare.push(performance.now() - t0);
    kubectl(undefined, "delete", "pod", "-n", NAMESPACE, name, "--wait=true");
    mine.pop();
  }
  const c = median(made);
  const a = median(bare);
  console.log(
    `create-to-ready: provider median ${c.toFixed(0)} ms, kubectl apply + wait Ready + exec true median ${a.toFixed(0)} ms: ${(c / a).toFixed(2)}x the anchor (bound 1.3x; ${rounds} rounds)`,
  );

  const ref = await provider.create(spec);
  if (!ref.ok) throw new Error(ref.error.message);
  const connection = await provider.connect(ref.value);
  if (!connection.ok) throw new Error(connection.error.message);
  const ours = [];
  const theirs = [];
  try {
    for (let i = 0; i < runs; i += 1) {
      let t0 = performance.now();
      await connection.value.client.call("exec.run", { argv: ["true"] });
      ours.push(performance.now() - t0);
      if (i % 5 === 0) {
        t0 = performance.now();
        kubectl(undefined, "exec", "-n", NAMESPACE, ref.value.name, "--", "true");
        theirs.push(performance.now() - t0);
      }
    }
  } finally {
    await connection.value.close();
    await provider.release(ref.value, "delete");
  }
  const e = median(ours);
  const k = median(theirs);
  console.log(
    `exec.run(["true"]) median ${e.toFixed(1)} ms over the open connection, kubectl exec true median ${k.toFixed(0)} ms: ${(k / e).toFixed(1)}x faster (bound 20x; ${runs} and ${theirs.length} runs)`,
  );
} finally {
  await cleanup();
}
console.log(`load after: ${uptime()}`);
