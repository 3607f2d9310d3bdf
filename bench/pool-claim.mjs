// Claim to first exec.run from a warm pool of 10 on Docker, over 100 claims, with the pool refilled
// in the background as claims take from it (and each claimed computer released behind), beside a
// cold create of the same spec (create, connect, first exec.run) in the same run. The claims go
// through a PoolWatch (the service's own bridges to the ready computers, so a claim is a rename
// and a record); beside them, claims with no watch (each connects after its rename). The goal is
// a claim p50 under 50 ms. A claim that finds the pool empty waits for the refill, untimed, and is
// counted. Everything is removed at the end by the pool's label (this run's alone).
//
//   node bench/pool-claim.mjs [claims] [size] [colds] [plain]   (defaults 100 10 5 20; after `npm run build`)
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const { DockerProvider } = await import(join(ROOT, "dist", "src", "docker", "index.js"));
const { claim, fillPool, poolReady, PoolWatch, POOL_LABEL } = await import(join(ROOT, "dist", "src", "pool.js"));
const { daemonPath, toolchain } = await import(join(ROOT, "bench", "computer.mjs"));

const claims = Number(process.argv[2] ?? 100);
const size = Number(process.argv[3] ?? 10);
const colds = Number(process.argv[4] ?? 5);
const plain = Number(process.argv[5] ?? 20);
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
let refill = Promise.resolve();

try {
  const first = await fillPool(pool, spec, size);
  if (!first.ok) throw new Error(`fill: ${first.error.message}`);
  // The refill: one fill at a time (fills at once would each make the missing), back to size
  // whenever claims took from the pool.
  refill = (async () => {
    while (!stop) {
      const filled = await fillPool(pool, spec, size);
      if (!filled.ok) throw new Error(`refill: ${filled.error.message}`);
      if (filled.value.length === 0) await sleep(50);
    }
  })();
  const watch = new PoolWatch(pool, { connections: size, everyMs: 100 });
  await watch.look();
  // Claims at a pace the refill can follow: a claim on a ready pool is what is measured.
  const claimMany = async (count, via) => {
    const timed = [];
    let empty = 0;
    while (timed.length < count) {
      const ready = await poolReady(pool);
      if (!ready.ok || ready.value.length === 0) {
        empty += 1;
        await sleep(100);
        continue;
      }
      if (via === watch) await watch.look();
      const t0 = performance.now();
      const c = await claim(via, { run, epoch: 1 });
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
    return { timed, empty };
  };
  const warm = await claimMany(claims, watch);
  await watch.close();
  const cold = await claimMany(plain, pool);
  stop = true;
  await refill;

  const created = [];
  for (let i = 0; i < colds; i += 1) {
    const t0 = performance.now();
    const made = await docker.create({ ...spec, labels: { [POOL_LABEL]: pool.id } });
    if (!made.ok) throw new Error(`cold create: ${made.error.message}`);
    const connected = await docker.connect(made.value);
    if (!connected.ok) throw new Error(`cold connect: ${connected.error.message}`);
    await connected.value.client.call("exec.run", { argv: ["true"] });
    created.push(performance.now() - t0);
    await connected.value.close();
    await docker.release(made.value, "delete");
  }
  const line = (what, xs) => `${what}: p50 ${ms(quantile(xs, 0.5))}, p99 ${ms(quantile(xs, 0.99))} (min ${ms(Math.min(...xs))}, max ${ms(Math.max(...xs))}, n ${xs.length})`;
  console.log(line(`claim → first exec.run through a PoolWatch, pool of ${size} refilled meanwhile`, warm.timed) + `; waits on an empty pool: ${warm.empty}`);
  console.log(line("claim → first exec.run with no watch (connects after the rename)", cold.timed) + `; waits on an empty pool: ${cold.empty}`);
  console.log(line("cold create → first exec.run, same spec, same run", created));
  console.log(`goal: claim p50 < 50 ms: ${quantile(warm.timed, 0.5) < 50 ? "met" : "not met"} through a PoolWatch; load average ${(await import("node:os")).loadavg()[0].toFixed(1)} on ${(await import("node:os")).availableParallelism()} cores (a machine shared with other work: read the figures beside each other)`);
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
