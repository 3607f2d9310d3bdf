// What one computer costs a stack, for docs/scale.md: a fleet of N small computers through the real
// Pulumi engine (up, an up with no change, refresh, destroy), each step's cost divided by N: the
// Docker engine's API calls (counted on a socket in front of the engine, engine-calls.mjs, by kind),
// the plugin's CPU, the wall time; after the up, the state's bytes (`pulumi stack export`) and the
// plugin's peak RSS. Beside them, in the same run through the same counter, the docker CLI's calls
// for one computer's `docker run -d`, `docker inspect` + `docker exec`, and `docker rm -f`: the
// anchor a call count is read against. Its stack and bare containers are removed at the end, and
// when stopped half-way (SIGINT, SIGTERM) too.
// With --skip-checkpoints the engine writes its state once at the end of each step, not after
// every resource (Pulumi's experimental PULUMI_SKIP_CHECKPOINTS): the difference is what writing
// the whole state file after each of N resources costs, which grows as N squared.
// Usage: npm run build && node bench/scale.mjs [N] [--parallel P] [--skip-checkpoints]   (after npm run setup)
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { cpus, loadavg } from "node:os";
import { promisify } from "node:util";
import { countingEngine } from "./engine-calls.mjs";
import { pluginCpu, pluginPeak } from "./proc-memory.mjs";
import { benchStack, fleetResources, leftOnDocker, removeLeft, tools } from "./pulumi-stack.mjs";
import { onStop } from "./stop.mjs";

const run = promisify(execFile);
const n = Number(process.argv[2] ?? 100);
const flag = process.argv.indexOf("--parallel");
const atOnce = ["--skip-preview", "--parallel", String(flag > 0 ? Number(process.argv[flag + 1]) : Math.min(n, 100))];
const tag = `scale-${randomBytes(4).toString("hex")}`;
const ANCHORS = 3;

const calls = await countingEngine();
const { dir, pulumi, program, init, remove } = await benchStack("agentrun-bench-scale-", {
  maxBuffer: 256 << 20,
  env: {
    DOCKER_HOST: calls.host,
    ...(process.argv.includes("--skip-checkpoints") ? { PULUMI_EXPERIMENTAL: "true", PULUMI_SKIP_CHECKPOINTS: "true" } : {}),
  },
});
const bare = Array.from({ length: ANCHORS }, (_, i) => `agentrun-bench-scale-bare-${tag}-${i}`);
const docker = (...args) => run("docker", args, { env: { ...process.env, DOCKER_HOST: calls.host } });
const cleanup = onStop(async () => {
  await pulumi("destroy", "--yes").catch(() => undefined);
  await run("docker", ["rm", "-f", ...bare]).catch(() => undefined);
  await removeLeft(`agentrun.bench=${tag}`);
  await calls.close();
  await remove();
});

const rows = [];
/** One step: its wall time, the plugin's CPU and the engine's calls, each per computer. */
async function measure(step, per, f) {
  calls.take();
  const cpu = pluginCpu(dir);
  const t0 = process.hrtime.bigint();
  await f();
  const wall = Number(process.hrtime.bigint() - t0) / 1e6;
  await new Promise((r) => setTimeout(r, 100));
  cpu.stop();
  const { total, byKind } = calls.take();
  const top = [...byKind]
    .slice(0, 4)
    .map(([k, c]) => `${(c / per).toFixed(1)} ${k}`)
    .join(", ");
  rows.push({ step, per, wall: wall / per, cpu: (cpu.seconds() * 1000) / per, calls: total / per, top });
}
const failing = (args) =>
  pulumi(...args).catch((e) => {
    const lines = `${e.stdout ?? ""}\n${e.stderr ?? ""}`.split("\n");
    throw new Error(`pulumi ${args[0]} failed (exit ${e.code}):\n${[...lines.filter((l) => /error/i.test(l)).slice(0, 20), ...lines.slice(-20)].join("\n")}`);
  });

try {
  const image = tools.baseImage;
  await program("agentrun-bench-scale", fleetResources(n, { image, tag }));
  await init();
  const peak = pluginPeak(dir);

  await measure(`up of ${n}`, n, () => failing(["up", "--yes", ...atOnce]));
  const state = (await pulumi("stack", "export")).stdout.length;
  await measure(`up with no change`, n, () => failing(["up", "--yes", ...atOnce]));
  await measure(`refresh of ${n}`, n, () => failing(["refresh", "--yes", ...atOnce]));
  await measure(`destroy of ${n}`, n, () => failing(["destroy", "--yes", ...atOnce]));
  peak.stop();
  const left = await leftOnDocker(`agentrun.bench=${tag}`);

  // The anchor: the docker CLI's own calls for the same steps on bare containers.
  const runBare = (name) => docker("run", "-d", "--name", name, "--network", "none", "--label", `agentrun.bench=${tag}`, image, "sleep", "3600");
  await measure("docker run -d", ANCHORS, () => Promise.all(bare.map(runBare)));
  await measure("docker inspect + exec", ANCHORS, () => Promise.all(bare.map(async (b) => (await docker("inspect", b), await docker("exec", b, "true")))));
  await measure("docker rm -f", ANCHORS, () => Promise.all(bare.map((b) => docker("rm", "-f", b))));

  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} at the end; ${atOnce.slice(1).join(" ")}`,
  );
  console.log(
    `${"step".padEnd(24)} ${"wall ms".padStart(9)} ${"plugin CPU ms".padStart(14)} ${"engine calls".padStart(13)}   (each per computer; the most made)`,
  );
  for (const r of rows) {
    const cpu = r.step.startsWith("docker") ? "-" : r.cpu.toFixed(1);
    console.log(`${r.step.padEnd(24)} ${r.wall.toFixed(1).padStart(9)} ${cpu.padStart(14)} ${r.calls.toFixed(1).padStart(13)}   ${r.top}`);
  }
  console.log(`state: ${state} bytes for ${n} computers, ${Math.round(state / n)} bytes a computer (pulumi stack export)`);
  console.log(`plugin peak RSS: ${(peak.peak() / 1024).toFixed(0)} MiB for ${n}`);
  console.log(`left after destroy: ${left.containers.length} computers, ${left.volumes.length} volumes (must be 0)`);
  if (left.containers.length || left.volumes.length) process.exitCode = 1;
} finally {
  await cleanup();
}
