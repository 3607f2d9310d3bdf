// Claim to first exec.run from a warm pool of 10 on Docker, over 100 claims, with the pool refilled
// in the background as claims take from it (and each claimed computer released behind), beside a
// cold create of the same spec (create, connect, first exec.run) in the same run. The goal is a
// claim p50 under 50 ms. A claim that finds the pool empty waits for the refill, untimed, and is
// counted. Everything is removed at the end by the pool's label (this run's alone).
//
//   node bench/pool-claim.mjs [claims] [size] [colds]     (defaults 100 10 5; after `npm run build`)
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const { DockerProvider } = await import(join(ROOT, "dist", "src", "docker", "index.js"));
const { claim, fillPool, poolReady, POOL_LABEL } = await import(join(ROOT, "dist", "src", "pool.js"));
const { daemonPath, toolchain } = await import(join(ROOT, "bench", "computer.mjs"));

const claims = Number(process.argv[2] ?? 100);
const size = Number(process.argv[3] ?? 10);
const colds = Number(process.argv[4] ?? 5);
const spec = { image: toolchain.baseImage, lifetimeMs: 3_600_000, network: "none", memoryMb: 256, cpus: 1, pids: 256 };
const docker = new DockerProvider({ daemonPath });
const pool = { provider: docker, id: `pool-${randomBytes(8).toString("hex")}` };
const run = `bench-${randomBytes(4).toString("hex")}`;

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => `${x.toFixed(1)} ms`;
const sleep = (t) => new Promise((r) => setTimeout(r, t));

let stop = false;
const releases = [];
// The refill: one fill at a time, back to size whenever claims took from the pool.
const refill = (async () => {
  while (!stop) {
    const filled = await fillPool(pool, spec, size);
    if (!filled.ok) throw new Error(`refill: ${filled.error.message}`);
    if (filled.value.length === 0) await sleep(50);
  }
})();

try {
  const first = await fillPool(pool, spec, size);
  if (!first.ok) throw new Error(`fill: ${first.error.message}`);
  const timed = [];
  let empty = 0;
  while (timed.length < claims) {
    // Claims come at a pace the refill can follow: a claim to a ready pool is what is measured.
    const ready = await poolReady(pool);
    if (!ready.ok || ready.value.length === 0) {
      empty += 1;
      await sleep(100);
      continue;
    }
    const t0 = performance.now();
    const c = await claim(pool, { run, epoch: 1 });
    if (!c.ok) {
      if (c.error.code === "not_found") continue;
      throw new Error(`claim: ${c.error.message}`);
    }
    const ran = await c.value.client.call("exec.run", { argv: ["true"] });
    const t = performance.now() - t0;
    if (ran.exitCode !== 0) throw new Error(`exec.run true exited ${ran.exitCode}`);
    timed.push(t);
    releases.push(c.value.close().then(() => docker.release(c.value.ref, "delete")));
    await sleep(150);
  }
  stop = true;
  await refill;

  const cold = [];
  for (let i = 0; i < colds; i += 1) {
    const t0 = performance.now();
    const made = await docker.create({ ...spec, labels: { [POOL_LABEL]: pool.id } });
    if (!made.ok) throw new Error(`cold create: ${made.error.message}`);
    const connected = await docker.connect(made.value);
    if (!connected.ok) throw new Error(`cold connect: ${connected.error.message}`);
    await connected.value.client.call("exec.run", { argv: ["true"] });
    cold.push(performance.now() - t0);
    await connected.value.close();
    await docker.release(made.value, "delete");
  }
  console.log(`claim → first exec.run over ${timed.length} claims from a pool of ${size} refilled meanwhile: p50 ${ms(quantile(timed, 0.5))}, p99 ${ms(quantile(timed, 0.99))} (min ${ms(Math.min(...timed))}, max ${ms(Math.max(...timed))}); waits on an empty pool: ${empty}`);
  console.log(`cold create → first exec.run, same spec, same run, ${cold.length} times: p50 ${ms(quantile(cold, 0.5))}, p99 ${ms(quantile(cold, 0.99))}`);
  console.log(`goal: claim p50 < 50 ms: ${quantile(timed, 0.5) < 50 ? "met" : "not met"}; the machine is shared with other work, so read the figures beside each other`);
} finally {
  stop = true;
  await refill.catch(() => {});
  await Promise.allSettled(releases);
  const left = execFileSync("docker", ["ps", "-aq", "--filter", `label=${POOL_LABEL}=${pool.id}`], { encoding: "utf8" }).split("\n").filter(Boolean);
  const ids = left.map((id) => execFileSync("docker", ["inspect", "--format", "{{.Id}}", id], { encoding: "utf8" }).trim());
  if (left.length) execFileSync("docker", ["rm", "--force", "--volumes", ...left], { stdio: "ignore" });
  for (const id of ids) execFileSync("docker", ["volume", "rm", "--force", `agentrun-claim-${id}`], { stdio: "ignore" });
  await docker.engine.close();
}
