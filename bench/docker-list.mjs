// list of many computers on the real engine: the Engine API calls it makes (two, whatever the
// count: the computers and the warm pools' claim records) and its time, beside one `docker ps` as the anchor. The computers are
// made by the provider with a label of this run and removed by exact name at the end, or when
// stopped half-way (SIGINT, SIGTERM) by the label too (the creates then in flight awaited first).
// Run after `npm run build`: node bench/docker-list.mjs [count]
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { DockerEngine, DockerProvider } from "../dist/src/docker/index.js";
import { onStop } from "./stop.mjs";

const count = Number(process.argv[2] ?? 100);
const toolchain = JSON.parse(readFileSync(new URL("../dist/toolchain.json", import.meta.url), "utf8"));
const calls = [];
const docker = new DockerProvider({
  daemonPath: toolchain.daemon.amd64,
  engine: new DockerEngine(undefined, (asked) => calls.push(`${asked.method} ${asked.path}`)),
});
const labels = { "agentrun.bench": randomBytes(6).toString("hex") };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const names = [];
const byLabel = ["--filter", `label=agentrun.bench=${labels["agentrun.bench"]}`];
let making = Promise.resolve();
const cleanup = onStop(async () => {
  await making.catch(() => undefined);
  for (let i = 0; i < names.length; i += 50) execFileSync("docker", ["rm", "--force", "--volumes", ...names.slice(i, i + 50)], { stdio: "ignore" });
  // A batch a stop came in the middle of is not in names.
  const left = execFileSync("docker", ["ps", "--all", "--quiet", ...byLabel], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  if (left.length) execFileSync("docker", ["rm", "--force", "--volumes", ...left], { stdio: "ignore" });
  await docker.engine.close();
});

try {
  const t0 = performance.now();
  for (let i = 0; i < count; i += 4) {
    const made = await (making = Promise.all(
      Array.from({ length: Math.min(4, count - i) }, () =>
        docker.create({ image: toolchain.baseImage, lifetimeMs: 3_600_000, network: "none", memoryMb: 64, labels }),
      ),
    ));
    for (const m of made) {
      if (!m.ok) throw new Error(m.error.message);
      names.push(m.value.name);
    }
  }
  console.log(`made ${count} computers in ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  const times = [];
  let listedCalls = [];
  for (let i = 0; i < 5; i += 1) {
    calls.length = 0;
    const t = performance.now();
    const listed = await docker.list(labels);
    times.push(performance.now() - t);
    if (!listed.ok) throw new Error(listed.error.message);
    if (listed.value.length !== count) throw new Error(`listed ${listed.value.length}, not ${count}`);
    listedCalls = [...calls];
  }
  const anchor = [];
  for (let i = 0; i < 5; i += 1) {
    const t = performance.now();
    execFileSync("docker", ["ps", "--all", ...byLabel], { stdio: "ignore" });
    anchor.push(performance.now() - t);
  }
  const tally = listedCalls.reduce((acc, c) => ({ ...acc, [c]: (acc[c] ?? 0) + 1 }), {});
  console.log(`list of ${count} computers: Engine API calls ${JSON.stringify(tally)}; median of 5: ${median(times).toFixed(0)} ms`);
  console.log(`anchor: one docker ps of the same computers, median of 5: ${median(anchor).toFixed(0)} ms`);
} finally {
  await cleanup();
}
