// A claim from a warm pool whose template's image is a snapshot (a pool of forks), beside a claim
// from a plain pool of the base image, in the same run: each claim timed from the call to the end
// of its first exec.run, the pool refilled between claims (untimed), the two pools' claims
// alternating. No PoolWatch: each claim connects after its take. Goal: the forks' p50 within 1.2×
// the plain pool's. Every computer is removed by its pool's label and the snapshot by its name,
// pass or fail, and when stopped half-way (SIGINT, SIGTERM) too, once the step then under way is done.
//
//   node bench/state-pool.mjs [claims] [size]   (defaults 30 4; after `npm run build`)
import { randomBytes } from "node:crypto";
import os from "node:os";
import { join } from "node:path";
import { makeComputer, removePool, toolchain } from "./computer.mjs";
import { onStop } from "./stop.mjs";

const ROOT = join(import.meta.dirname, "..");
const { claim, fillPool } = await import(join(ROOT, "dist", "src", "fleet", "pool.js"));

const claims = Number(process.argv[2] ?? 30);
const size = Number(process.argv[3] ?? 4);
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const ms = (x) => `${x.toFixed(1)} ms`;
const base = { lifetimeMs: 3_600_000, network: "none", memoryMb: 256, cpus: 1, pids: 256 };
const run = `bench-${randomBytes(4).toString("hex")}`;

const parent = await makeComputer({ memoryMb: 256 });
const { docker } = parent;
const pools = [];
const releases = [];
let snapshot;
// The take, fill or claim under way: a stop awaits it, and once stopping the flow starts no more.
let stopping = false;
let making = Promise.resolve();
const step = (promise) => {
  if (stopping) throw new Error("the bench is stopping: nothing more is made");
  return (making = promise);
};
// Registered after the parent's (makeComputer): a stop removes the pools and the snapshot, then the parent.
const cleanup = onStop(async () => {
  stopping = true;
  await making.catch(() => undefined);
  await Promise.allSettled(releases);
  for (const pool of pools) {
    removePool(pool.id);
  }
  if (snapshot) await docker.snapshots.remove(snapshot.image).catch(() => {});
});
try {
  if (!docker.snapshots) throw new Error("this build's Docker provider has no snapshot hooks");
  const ran = await parent.client.call("exec.run", { argv: ["sh", "-c", "mkdir -p /tmp/task && head -c 1048576 /dev/urandom > /tmp/task/data"] });
  if (ran.exitCode !== 0) throw new Error("preparing the parent failed");
  // Kept as it is answered, so a stop that awaited the take removes its image.
  const taken = await step(docker.snapshots.take(parent.ref, { labels: { "agentrun.bench": run } }).then((t) => ((snapshot = t.ok ? t.value : undefined), t)));
  if (!taken.ok) throw new Error(`take: ${taken.error.message}`);
  const forks = { provider: docker, id: `pool-${randomBytes(8).toString("hex")}`, spec: { ...base, image: snapshot.image }, timed: [] };
  const plain = { provider: docker, id: `pool-${randomBytes(8).toString("hex")}`, spec: { ...base, image: toolchain.baseImage }, timed: [] };
  pools.push(forks, plain);
  for (const pool of pools) {
    const filled = await step(fillPool(pool, pool.spec, size));
    if (!filled.ok) throw new Error(`fill ${pool.id}: ${filled.error.message}`);
  }
  for (let i = 0; i < claims; i += 1) {
    for (const pool of i % 2 === 0 ? [forks, plain] : [plain, forks]) {
      const t0 = performance.now();
      const c = await step(claim(pool, { run, epoch: 1 }));
      if (!c.ok) throw new Error(`claim from ${pool.id}: ${c.error.message}`);
      const done = await c.value.client.call("exec.run", { argv: ["true"] });
      pool.timed.push(performance.now() - t0);
      if (done.exitCode !== 0) throw new Error(`exec.run true exited ${done.exitCode}`);
      releases.push(c.value.close().then(() => docker.release(c.value.ref, "delete")));
      const filled = await step(fillPool(pool, pool.spec, size));
      if (!filled.ok) throw new Error(`refill ${pool.id}: ${filled.error.message}`);
    }
  }
  const line = (what, xs) => `${what}: p50 ${ms(quantile(xs, 0.5))}, p99 ${ms(quantile(xs, 0.99))} (min ${ms(Math.min(...xs))}, n ${xs.length})`;
  console.log(line(`claim → first exec.run from a warm pool of ${size} forks of a snapshot`, forks.timed));
  console.log(line(`claim → first exec.run from a plain pool of ${size} (the anchor)`, plain.timed));
  const ratio = quantile(forks.timed, 0.5) / quantile(plain.timed, 0.5);
  console.log(
    `ratio of p50s ${ratio.toFixed(2)}× (goal ≤ 1.2×: ${ratio <= 1.2 ? "met" : "not met"}); load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
  );
} finally {
  await cleanup();
  await parent.remove();
}
