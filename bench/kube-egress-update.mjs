// A shared egress proxy's key rotated under running computers on the test cluster (npm run
// kube:up): N computers joined to one proxy, then rounds of `proxies.update` with a new key, each
// timed until it returns, which is when every sidecar says (its log) it holds the new version: no
// Pod restarts. Beside its anchor in the same run: what a rotation took before, a new computer
// made behind the proxy (its create to ready), median of a few. Everything is made in a namespace
// of its own and removed, when stopped half-way too. Run after `npm run build`:
// node bench/kube-egress-update.mjs [computers] [rounds] [creates]
import { randomBytes } from "node:crypto";
import { create } from "../dist/src/kubernetes/index.js";
import { benchNamespace, kube, kubeconfigText, uptime } from "./kube-namespace.mjs";

const computers = Number(process.argv[2] ?? 3);
const rounds = Number(process.argv[3] ?? 5);
const creates = Number(process.argv[4] ?? 3);
const NAMESPACE = `agentrun-bench-egress-${randomBytes(3).toString("hex")}`;
const HOST = "api.bench.test";
const provider = create({ kubeconfig: kubeconfigText(), namespace: NAMESPACE });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const must = (r, what) => {
  if (!r.ok) throw new Error(`${what}: ${r.error.message}`);
  return r.value;
};
const key = () => ({ host: HOST, header: "X-Api-Key", value: `k-${randomBytes(16).toString("hex")}` });

const { cleanup } = benchNamespace(NAMESPACE, provider);
let proxy;
try {
  proxy = must(await provider.proxies.make({ allow: [HOST], credentials: [key()], lifetimeMs: 1_800_000 }), "the proxy");
  const spec = { image: kube.image, lifetimeMs: 900_000, network: { allow: [] }, egress: proxy.name, cpus: 0.1, memoryMb: 128 };
  const made = [];
  const join = async () => {
    const start = performance.now();
    const ref = must(await provider.create(spec), "a joined computer");
    made.push(ref);
    return performance.now() - start;
  };
  for (let i = 0; i < computers; i += 1) await join();
  console.log(`${computers} computers behind ${proxy.name}; load ${uptime()}`);
  const rotations = [];
  for (let i = 0; i < rounds; i += 1) {
    const start = performance.now();
    must(await provider.proxies.update(proxy.id, { allow: [HOST], credentials: [key()] }), "a rotation");
    rotations.push(performance.now() - start);
  }
  const anchor = [];
  for (let i = 0; i < creates; i += 1) anchor.push(await join());
  console.log(
    `a key rotated under ${computers} running computers, until every sidecar holds it: median ${median(rotations).toFixed(0)} ms (${rounds} rounds: ${rotations.map((t) => t.toFixed(0)).join(", ")} ms)`,
  );
  console.log(`anchor, a new computer behind the proxy (a rotation's cost before): median ${median(anchor).toFixed(0)} ms (${creates} creates)`);
  console.log(`ratio ${(median(rotations) / median(anchor)).toFixed(2)}x; load ${uptime()}`);
  for (const ref of made) must(await provider.release(ref, "delete"), "a release");
  must(await provider.proxies.release(proxy.id), "the proxy's release");
} finally {
  await cleanup();
}
