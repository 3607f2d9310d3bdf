// A fleet of N small computers (default 100) through the real Pulumi engine: up, an up with no
// change, refresh, a change that replaces 10, and destroy. Each step's time is printed beside the
// floor of the same docker calls made bare in the same run (N parallel `docker run -d` for up,
// N parallel `docker inspect` + `docker exec` for refresh, 10 runs and 10 removals for the
// replace, N parallel `docker rm -f` for destroy), then the leaks (computers and volumes left with
// the fleet's label: must be zero), the Docker engine's memory (dockerd and containerd RSS, before
// and at its peak) and the plugin's peak RSS. Everything it makes it removes by exact name or by
// its own run label, when stopped half-way (SIGINT, SIGTERM) too. Every step runs at --parallel N,
// as its floor makes its N calls at once (the engine's own default here is 8), or at --parallel P:
// a machine that cannot start N containers at once (300 here at load 50-90: hellos past 30 s)
// still holds a fleet of N, P steps in flight, so the plugin's memory per computer shows apart
// from its memory per step in flight. Last, the engine alone: an up and a destroy of N Mounts (a
// folder each, in the bench's own folder: no Docker call), at the same --parallel, for what the
// Pulumi engine's own steps (its state written after each) take of a step's time. With
// --skip-checkpoints every stack runs with Pulumi's experimental PULUMI_SKIP_CHECKPOINTS (the state
// written once at each step's end), so a step's share that is the state's writes shows.
// Usage: node bench/fleet-100.mjs [N] [--parallel P] [--skip-checkpoints]   (after npm run setup)
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { kib, peakOf, pidsOf, pluginPeak } from "./proc-memory.mjs";
import { benchStack, fleetResources, leftOnDocker, removeLeft, tools } from "./pulumi-stack.mjs";
import { onStop } from "./stop.mjs";

const run = promisify(execFile);
const n = Number(process.argv[2] ?? 100);
const flag = process.argv.indexOf("--parallel");
const inFlight = flag > 0 ? Number(process.argv[flag + 1]) : n;
const REPLACED = Math.min(10, n);
const image = tools.baseImage;
const tag = `fleet-${randomBytes(4).toString("hex")}`;
const checkpoints = process.argv.includes("--skip-checkpoints") ? { PULUMI_EXPERIMENTAL: "true", PULUMI_SKIP_CHECKPOINTS: "true" } : {};
const { dir, pulumi, program, init, remove } = await benchStack("agentrun-bench-fleet100-", { skipPreview: true, maxBuffer: 256 << 20, env: checkpoints });
const alone = await benchStack("agentrun-bench-fleet100-alone-", { skipPreview: true, maxBuffer: 256 << 20, env: checkpoints });
const atOnce = ["--parallel", String(inFlight)];
const seconds = async (f) => {
  const t0 = process.hrtime.bigint();
  await f();
  return Number(process.hrtime.bigint() - t0) / 1e9;
};
// The floor's calls, inFlight at a time as the engine's steps are.
const parallel = async (items, f) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(inFlight, items.length) }, async () => {
      while (next < items.length) await f(items[next++]);
    }),
  );
};

// A change of the label on the first ten replaces them.
const fleetProgram = (generation) => program("agentrun-bench-fleet100", fleetResources(n, { image, tag, generation, replaced: REPLACED }));

// --- memory: the engine's and the plugin's, sampled while the steps run ---
const enginePids = await pidsOf(async (_p, cmd) => /^(dockerd|\/usr\/sbin\/dockerd|containerd --config \/var\/run\/docker)/.test(cmd));
const engineRss = async () => (await Promise.all(enginePids.map((p) => kib(p, "VmRSS")))).reduce((a, b) => a + b, 0);
const engine = peakOf(engineRss);
const plugin = pluginPeak(dir);

const fleetLeft = async () => {
  const left = await leftOnDocker(`agentrun.bench=${tag}`);
  return { containers: left.containers.length, volumes: left.volumes.length };
};

const bare = Array.from({ length: n }, (_, i) => `agentrun-bench-bare-${tag}-${i}`);
const spare = Array.from({ length: REPLACED }, (_, i) => `agentrun-bench-spare-${tag}-${i}`);
const runBare = (name) =>
  run("docker", [
    "run",
    "-d",
    "--name",
    name,
    "--network",
    "none",
    "--user",
    "1000:1000",
    "--cpus",
    "0.25",
    "--memory",
    "128m",
    "--pids-limit",
    "64",
    image,
    "sleep",
    "3600",
  ]);
const rows = [];
// Each step's row, with the plugin's peak RSS so far (which step makes the peak).
const row = (step, took, floor, floorWords) =>
  rows.push(
    `${step.padEnd(34)} ${took.toFixed(1).padStart(7)} s   floor ${floor.toFixed(1).padStart(6)} s (${floorWords})   ${(took / floor).toFixed(2)}x   plugin peak so far ${(plugin.peak() / 1024).toFixed(0)} MiB`,
  );
// A failed step says its own errors, not the start of a long stdout: the lines that say error, then the last ones.
const step = (...args) =>
  pulumi(...args).catch((e) => {
    const lines = `${e.stdout ?? ""}\n${e.stderr ?? ""}`.split("\n");
    const said = [...lines.filter((l) => /error/i.test(l)).slice(0, 20), "...", ...lines.slice(-20)].join("\n");
    throw new Error(`pulumi ${args[0]} failed (exit ${e.code}):\n${said}`);
  });
// Stopped half-way, it removes its stack's computers, the bare ones and any computer carrying its label.
const cleanup = onStop(async () => {
  engine.stop();
  plugin.stop();
  await pulumi("destroy", "--yes").catch(() => undefined);
  await run("docker", ["rm", "-f", ...bare, ...spare]).catch(() => undefined);
  await removeLeft(`agentrun.bench=${tag}`);
  await alone.pulumi("destroy", "--yes").catch(() => undefined);
  await remove();
  await alone.remove();
});
try {
  const engineBefore = await engineRss();
  await fleetProgram(1);
  await init();

  const floorUp = await seconds(() => parallel(bare, runBare));
  const floorRefresh = await seconds(() =>
    parallel(bare, async (b) => {
      await run("docker", ["inspect", b]);
      await run("docker", ["exec", b, "true"]);
    }),
  );
  const floorReplace = await seconds(() => Promise.all([parallel(spare, runBare), parallel(bare.slice(0, REPLACED), (b) => run("docker", ["rm", "-f", b]))]));
  const floorDestroy = await seconds(() => parallel([...bare.slice(REPLACED), ...spare], (b) => run("docker", ["rm", "-f", b])));

  row(`up of ${n}`, await seconds(() => step("up", "--yes", ...atOnce)), floorUp, `${n} docker run -d, ${inFlight} at once`);
  row("up with no change", await seconds(() => step("up", "--yes", ...atOnce)), floorRefresh, "the refresh floor, for scale");
  row(`refresh of ${n}`, await seconds(() => step("refresh", "--yes", ...atOnce)), floorRefresh, `${n} docker inspect + exec, ${inFlight} at once`);
  await fleetProgram(2);
  row(`up replacing ${REPLACED}`, await seconds(() => step("up", "--yes", ...atOnce)), floorReplace, `${REPLACED} run -d + ${REPLACED} rm -f at once`);
  const beforeDestroy = await fleetLeft();
  row(`destroy of ${n}`, await seconds(() => step("destroy", "--yes", ...atOnce)), floorDestroy, `${n} docker rm -f, ${inFlight} at once`);
  const left = await fleetLeft();
  engine.stop();
  plugin.stop();
  const mounts = Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`m${i}`, { type: "agentrun:index:Mount", properties: { path: join(alone.dir, "mounts", String(i)) } }]),
  );
  await alone.program("agentrun-bench-fleet100-alone", mounts);
  await alone.init();
  const aloneUp = await seconds(() => alone.pulumi("up", "--yes", ...atOnce));
  const aloneDestroy = await seconds(() => alone.pulumi("destroy", "--yes", ...atOnce));

  console.log(
    `machine: ${cpus().length} cores, ${inFlight} steps at once, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} at the end`,
  );
  console.log(rows.join("\n"));
  console.log(`the engine alone, ${n} Mounts (a folder each, no Docker call): up ${aloneUp.toFixed(1)} s, destroy ${aloneDestroy.toFixed(1)} s`);
  if (checkpoints.PULUMI_SKIP_CHECKPOINTS) console.log("every stack ran with PULUMI_SKIP_CHECKPOINTS=true: the state written once at each step's end");
  console.log(`computers before destroy: ${beforeDestroy.containers} (declared ${n}: no duplicate)`);
  console.log(`leaks after destroy: ${left.containers} computers, ${left.volumes} volumes with the fleet's label (must be 0)`);
  console.log(
    `Docker engine memory (dockerd + containerd RSS): ${(engineBefore / 1024).toFixed(0)} MiB before, ${(engine.peak() / 1024).toFixed(0)} MiB at its peak`,
  );
  console.log(`plugin peak RSS: ${(plugin.peak() / 1024).toFixed(0)} MiB`);
  if (left.containers || left.volumes || beforeDestroy.containers !== n) process.exitCode = 1;
} finally {
  await cleanup();
}
