// Claim to the first CDP answer from a warm pool of Docker browsers: a claim through a PoolWatch
// (its bridges, CDP served on them, held), a CDP connection to the URL the claim hands out and one
// Browser.getVersion, the pool refilled between claims (untimed), each claimed browser released
// behind. Beside it in the same run: the floor (a second CDP connection and Browser.getVersion
// to the same claimed browser, with no claim), and a cold create of the same spec to its first CDP
// answer (create, connect, Browser.getVersion). Kernel publishes 30 ms p50 / 105 ms p99 for its
// pool; the goal is claim p50 < 30 ms. Everything is removed at the end by the pool's label, and
// when stopped half-way (SIGINT, SIGTERM) too, once the fill or create then in flight is done.
//
//   node bench/browser-pool.mjs [claims] [size] [colds]   (defaults 20 3 3; after `npm run build`)
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import os from "node:os";

const ROOT = join(import.meta.dirname, "..");
const { DockerProvider } = await import(join(ROOT, "dist", "src", "docker", "index.js"));
const { claim, fillPool, PoolWatch } = await import(join(ROOT, "dist", "src", "fleet", "pool.js"));
const { openCdp } = await import(join(ROOT, "dist", "src", "conformance", "cdp.js"));
const { coldFirst, daemonPath, removePool } = await import(join(ROOT, "bench", "computer.mjs"));
const { onStop } = await import(join(ROOT, "bench", "stop.mjs"));

const claims = Number(process.argv[2] ?? 20);
const size = Number(process.argv[3] ?? 3);
const colds = Number(process.argv[4] ?? 3);
const spec = { kind: "browser", image: "chromium", lifetimeMs: 3_600_000, network: "none" };
const docker = new DockerProvider({ daemonPath });
const pool = { provider: docker, id: `pool-${randomBytes(8).toString("hex")}` };
const run = `bench-${randomBytes(4).toString("hex")}`;

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const line = (what, xs) =>
  `${what}: p50 ${quantile(xs, 0.5).toFixed(1)} ms, p99 ${quantile(xs, 0.99).toFixed(1)} ms (min ${Math.min(...xs).toFixed(1)}, max ${Math.max(...xs).toFixed(1)}, n ${xs.length})`;

/** One CDP connection to url and one Browser.getVersion on it. */
async function version(url) {
  const cdp = await openCdp(url);
  try {
    const { product } = await cdp.send("Browser.getVersion");
    if (!/Chrome\//.test(product)) throw new Error(`Browser.getVersion answered ${product}`);
  } finally {
    cdp.close();
  }
}

const releases = [];
/** The fill or cold create under way: a stop awaits it. */
let making = Promise.resolve();
let watch;
const cleanup = onStop(async () => {
  await making.catch(() => {});
  await watch?.close();
  await Promise.allSettled(releases);
  removePool(pool.id);
  await docker.engine.close();
});
try {
  const fill = async () => {
    const filled = await (making = fillPool(pool, spec, size));
    if (!filled.ok) throw new Error(`fill: ${filled.error.message}`);
  };
  await fill();
  watch = new PoolWatch(pool, { connections: size, everyMs: 60_000 });
  await watch.look();
  const claimed = [];
  const floor = [];
  while (claimed.length < claims) {
    const t0 = performance.now();
    const c = await claim(watch, { run, epoch: 1 });
    if (!c.ok) throw new Error(`claim: ${c.error.message}`);
    await version(c.value.cdp.url);
    claimed.push(performance.now() - t0);
    const t1 = performance.now();
    await version(c.value.cdp.url);
    floor.push(performance.now() - t1);
    releases.push(c.value.close().then(() => docker.release(c.value.ref, "delete")));
    await fill();
    await watch.look();
  }
  await watch.close();
  const cold = [];
  for (let i = 0; i < colds; i += 1)
    cold.push(
      await coldFirst(
        docker,
        spec,
        pool.id,
        (c) => version(c.cdp.url),
        (p) => (making = p),
      ),
    );
  console.log(line(`claim → first CDP answer (Browser.getVersion) through a PoolWatch, pool of ${size} refilled between claims`, claimed));
  console.log(line("  the floor: a second CDP connection and Browser.getVersion to the same claimed browser, no claim", floor));
  console.log(line("  cold create → first CDP answer, same spec, same run", cold));
  console.log(
    `goal: claim p50 < 30 ms (Kernel publishes 30 ms p50 / 105 ms p99): ${quantile(claimed, 0.5) < 30 ? "met" : "not met"}; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
  );
} finally {
  await cleanup();
}
