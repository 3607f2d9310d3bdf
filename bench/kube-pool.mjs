// A warm pool's claim on the test cluster (npm run kube:up): claim to first exec.run over a pool
// of ready Pods, each claim timed alone, two ways: A, a plain claim (the claim's patch under the
// Pod's resourceVersion, a connection through the exec bridge, one exec.run of true); B, through
// a PoolWatch (a service's bridges held to the ready Pods: the claim is the patch, handed the held
// connection). Beside its anchor in the same run: a cold create of the same spec to its first exec.run. p50 and p99 of the claims, the median of the
// creates. Everything is made in a namespace of its own (agentrun-bench-pool) and removed, when
// stopped half-way too. Run after `npm run build`: node bench/kube-pool.mjs [claims] [creates]
import { randomBytes } from "node:crypto";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { create } from "../dist/src/kubernetes/index.js";
import { claim, clearPool, fillPool, PoolWatch } from "../dist/src/fleet/pool.js";
import { onStop } from "./stop.mjs";

const claims = Number(process.argv[2] ?? 20);
const creates = Number(process.argv[3] ?? 3);
const NAMESPACE = "agentrun-bench-pool";
const kube = JSON.parse(readFileSync(new URL("../dist/kube.json", import.meta.url), "utf8"));
const kubectl = (...args) => execFileSync(kube.kubectl, ["--kubeconfig", kube.kubeconfig, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
const provider = create({ kubeconfig: readFileSync(kube.kubeconfig, "utf8"), namespace: NAMESPACE });
const pool = { provider, id: `pool-${randomBytes(8).toString("hex")}` };
const run = `bench-pool-${randomBytes(4).toString("hex")}`;
const spec = { image: kube.image, lifetimeMs: 900_000, network: "none", cpus: 0.1, memoryMb: 128 };
const percentile = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];
const must = (r, what) => {
  if (!r.ok) throw new Error(`${what}: ${r.error.message}`);
  return r.value;
};

if (kubectl("get", "namespace", NAMESPACE, "--ignore-not-found", "-o", "name").trim() === "") kubectl("create", "namespace", NAMESPACE);
const cleanup = onStop(() => {
  // The namespace holds everything the bench made: its deletion takes every Pod with it.
  kubectl("delete", "namespace", NAMESPACE, "--wait=true", "--ignore-not-found");
});
try {
  const t0 = performance.now();
  must(await fillPool(pool, spec, claims), "the fill");
  console.log(`pool of ${claims} filled in ${((performance.now() - t0) / 1000).toFixed(1)} s; load ${execFileSync("uptime", { encoding: "utf8" }).trim()}`);
  const claimsThrough = async (via) => {
    const took = [];
    for (let i = 0; i < claims / 2; i += 1) {
      const start = performance.now();
      const c = must(await claim(via, { run, epoch: 1 }), "a claim");
      await c.client.call("exec.run", { argv: ["true"], timeoutMs: 20_000 });
      took.push(performance.now() - start);
      await c.close();
      // The run ends: its Pod goes, so the node keeps room for the next ones.
      must(await provider.release(c.ref, "delete"), "a claimed Pod's release");
      if (via instanceof PoolWatch) await via.look();
    }
    return took;
  };
  const plain = await claimsThrough(pool);
  const watch = new PoolWatch(pool, { connections: claims, everyMs: 100 });
  await watch.look();
  const watched = await claimsThrough(watch);
  await watch.close();
  const cold = [];
  for (let i = 0; i < creates; i += 1) {
    const start = performance.now();
    const ref = must(await provider.create(spec), "a create");
    const c = must(await provider.connect(ref), "a connect");
    await c.client.call("exec.run", { argv: ["true"], timeoutMs: 20_000 });
    cold.push(performance.now() - start);
    await c.close();
    must(await provider.release(ref, "delete"), "a release");
  }
  const anchor = percentile(cold, 50);
  for (const [way, took] of [
    ["A plain claim", plain],
    ["B through a PoolWatch", watched],
  ])
    console.log(
      `${way} to first exec.run: p50 ${percentile(took, 50).toFixed(1)} ms, p99 ${percentile(took, 99).toFixed(1)} ms (${took.length} claims; goal p50 < 50 ms, p99 < 150 ms), ${(anchor / percentile(took, 50)).toFixed(0)}x faster than the anchor`,
    );
  console.log(`anchor, a cold create to first exec.run: median ${anchor.toFixed(0)} ms (${creates} creates)`);
  must(await clearPool(pool), "the pool's release");
} finally {
  await cleanup();
}
