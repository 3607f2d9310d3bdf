// Claim to first exec.run from a warm pool of 10 on Docker, over 100 claims with refills, beside a
// cold create of the same spec (create, connect, first exec.run) in the same run; each claimed
// computer is released behind. A: through a PoolWatch (the service's own bridges to the ready
// computers, so a claim is a rename and a record), the pool refilled between claims; B: the same
// with the refill running beside the claims (Docker busy making computers); E: with no watch, the
// pool refilled between claims (each claim connects after its rename with no exec: to init's
// socket from this machine on an engine here, else attached to the computer's own stdio); C: the
// same with the refill beside. The goals: p50 under 20 ms through a watch
// (A), under 50 ms with none (E). A claim that finds the pool empty waits for the refill, untimed,
// and is counted. Everything is removed at the end by the pool's label (this run's alone), and when
// stopped half-way (SIGINT, SIGTERM) too, once the fill or create then in flight is done.
//
//   node bench/pool-claim.mjs [claims] [size] [colds] [plain]   (defaults 100 10 5 20; plain: E's and C's claims; after `npm run build`)
import { randomBytes } from "node:crypto";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const { DockerProvider } = await import(join(ROOT, "dist", "src", "docker", "index.js"));
const { claim, fillPool, poolReady, PoolWatch } = await import(join(ROOT, "dist", "src", "fleet", "pool.js"));
const { coldFirst, daemonPath, removePool, toolchain } = await import(join(ROOT, "bench", "computer.mjs"));
const { onStop } = await import(join(ROOT, "bench", "stop.mjs"));

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
/** The claims' own fill or a cold create under way (the refill beside them is refill): a stop awaits it. */
let making = Promise.resolve();
const fill = () => (making = fillPool(pool, spec, size));
// Where a claim's time goes: the take (rename and record, or list first) apart from the rest.
const takes = [];
const take = docker.pool.take;
docker.pool.take = async (...args) => {
  const t0 = performance.now();
  const r = await take(...args);
  takes.push(performance.now() - t0);
  return r;
};

const cleanup = onStop(async () => {
  stop = true;
  await refill.catch(() => {});
  await making.catch(() => {});
  await Promise.allSettled(releases);
  removePool(pool.id);
  await docker.engine.close();
});
try {
  const first = await fill();
  if (!first.ok) throw new Error(`fill: ${first.error.message}`);
  const watch = new PoolWatch(pool, { connections: size, everyMs: 100 });
  await watch.look();
  // One claim, timed from the call to the end of its first exec.run; the computer is released behind.
  const claimOne = async (via) => {
    const t0 = performance.now();
    const c = await claim(via, { run, epoch: 1 });
    if (!c.ok) {
      if (c.error.code === "not_found") return undefined;
      throw new Error(`claim: ${c.error.message}`);
    }
    const ran = await c.value.client.call("exec.run", { argv: ["true"] });
    const t = performance.now() - t0;
    if (ran.exitCode !== 0) throw new Error(`exec.run true exited ${ran.exitCode}`);
    releases.push(c.value.close().then(() => docker.release(c.value.ref, "delete")));
    return t;
  };

  // A (through the watch) and E (with none): each claim on a full pool, refilled between claims
  // (untimed), so the claim runs alone.
  const claimBetween = async (count, via) => {
    const timed = [];
    while (timed.length < count) {
      const t = await claimOne(via);
      if (t !== undefined) timed.push(t);
      const filled = await fill();
      if (!filled.ok) throw new Error(`refill: ${filled.error.message}`);
      if (via === watch) await watch.look();
    }
    return timed;
  };
  const between = await claimBetween(claims, watch);
  const takesBetween = takes.splice(0);

  // B: claims while the refill runs beside them (one fill at a time), at a pace it can follow.
  const refilling = async () => {
    while (!stop) {
      const filled = await fillPool(pool, spec, size);
      if (!filled.ok) throw new Error(`refill: ${filled.error.message}`);
      if (filled.value.length === 0) await sleep(50);
    }
  };
  refill = refilling();
  const claimWhileRefilling = async (count, via) => {
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
      const t = await claimOne(via);
      if (t !== undefined) timed.push(t);
      await sleep(150);
    }
    return { timed, empty };
  };
  const beside = await claimWhileRefilling(claims, watch);
  await watch.close();
  stop = true;
  await refill;
  // E: claims with no watch, the pool refilled between: each connects after its rename.
  takes.length = 0;
  const unwatchedBetween = await claimBetween(plain, pool);
  const takesUnwatched = takes.splice(0);
  // C: the same with the refill beside.
  stop = false;
  refill = refilling();
  const unwatched = await claimWhileRefilling(plain, pool);
  stop = true;
  await refill;

  const created = [];
  for (let i = 0; i < colds; i += 1)
    created.push(
      await coldFirst(
        docker,
        spec,
        pool.id,
        (c) => c.client.call("exec.run", { argv: ["true"] }),
        (p) => (making = p),
      ),
    );
  const line = (what, xs) =>
    `${what}: p50 ${ms(quantile(xs, 0.5))}, p99 ${ms(quantile(xs, 0.99))} (min ${ms(Math.min(...xs))}, max ${ms(Math.max(...xs))}, n ${xs.length})`;
  console.log(line(`A claim → first exec.run through a PoolWatch, pool of ${size} refilled between claims`, between));
  console.log(line("  of which the take (rename and claim record)", takesBetween));
  console.log(
    line(`B claim → first exec.run through a PoolWatch, pool of ${size} refilled beside the claims`, beside.timed) +
      `; waits on an empty pool: ${beside.empty}`,
  );
  console.log(line(`E claim → first exec.run with no watch (connects after the rename), pool of ${size} refilled between claims`, unwatchedBetween));
  console.log(line("  of which the take (list, rename and claim record)", takesUnwatched));
  console.log(
    line("C claim → first exec.run with no watch (connects after the rename), refilled beside", unwatched.timed) +
      `; waits on an empty pool: ${unwatched.empty}`,
  );
  console.log(line("D cold create → first exec.run, same spec, same run", created));
  const os = await import("node:os");
  const met = (xs, ms) => (quantile(xs, 0.5) < ms ? "met" : "not met");
  console.log(
    `goals: claim p50 < 20 ms through a watch (A): ${met(between, 20)}; < 50 ms with none (E): ${met(unwatchedBetween, 50)}; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores (a machine shared with other work: read the figures beside each other)`,
  );
} finally {
  await cleanup();
}
