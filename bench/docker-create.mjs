// create-to-ready on the real engine: DockerProvider.create (the host read once, create and start,
// inspect, hello over the bridge, the drift check, all over the Engine API) beside its anchor, a bare `docker run -d` +
// `docker inspect` + one `docker exec` of the same image, in the same run, interleaved. Each is
// removed as it is timed, and when stopped half-way (SIGINT, SIGTERM) too.
// Run after `npm run build`: node bench/docker-create.mjs [rounds]
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { DockerProvider } from "../dist/src/docker/index.js";
import { releaseOnStop } from "./stop.mjs";

const rounds = Number(process.argv[2] ?? 7);
const toolchain = JSON.parse(readFileSync(new URL("../dist/toolchain.json", import.meta.url), "utf8"));
const image = toolchain.baseImage;
const docker = new DockerProvider({ daemonPath: toolchain.daemon.amd64 });
const sh = (...args) => execFileSync("docker", args, { encoding: "utf8" }).trim();
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
/** The anchor's container of the round under way. */
let bareName;
const cleanup = releaseOnStop(docker, async () => {
  if (bareName) spawnSync("docker", ["rm", "--force", bareName], { stdio: "ignore" });
  await docker.engine.close();
});

// One create first: the host read and the daemon copy are once per provider and process.
// Labelled by this process, so what a stop leaves is found by it (test/docker/bench-stop.test.ts).
const labels = { "agentrun.bench": `docker-create-${process.pid}` };
const warm = await docker.create({ image, lifetimeMs: 600_000, network: "none", labels });
if (!warm.ok) throw new Error(warm.error.message);
await docker.release(warm.value, "delete");

const create = [];
const bare = [];
for (let i = 0; i < rounds; i += 1) {
  let t0 = performance.now();
  const made = await docker.create({ image, lifetimeMs: 600_000, network: "none", labels });
  create.push(performance.now() - t0);
  if (!made.ok) throw new Error(made.error.message);
  await docker.release(made.value, "delete");

  const name = (bareName = `bench-bare-${process.pid}-${i}`);
  t0 = performance.now();
  try {
    sh("run", "-d", "--name", name, "--network", "none", image, "sleep", "600");
    sh("inspect", name);
    sh("exec", name, "sh", "-c", ":");
    bare.push(performance.now() - t0);
  } finally {
    sh("rm", "--force", name);
    bareName = undefined;
  }
}
const c = median(create);
const b = median(bare);
console.log(`create-to-ready (create with drift check and hello), median of ${rounds}: ${c.toFixed(0)} ms`);
console.log(`anchor: docker run -d + docker inspect + docker exec, median of ${rounds}: ${b.toFixed(0)} ms`);
console.log(`ratio: ${(c / b).toFixed(2)}x (goal <= 1.1x)`);
await cleanup();
