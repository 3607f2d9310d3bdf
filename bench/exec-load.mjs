// 200 concurrent exec.run across 20 computers, through the library and through one plugin
// process, beside the floor, in one run on the same computers. A stack (the real Pulumi engine,
// the plugin from provider/bin) makes 20 small computers; then:
// - the floor: `docker exec <c> sh -c :` one at a time, one per computer;
// - the library: 200 exec.run at once, one connection per computer, ten calls in flight on each;
// - the plugin: the stack's next up adds 200 ComputerCommands, ten per computer, created at once
//   (--parallel past the stack's size: the engine's default is 4 x GOMAXPROCS, 8 here), each
//   printing a token of its own and the time it ran; every output is read back from the stack's
//   outputs and held to its own token.
// Latency through the plugin is each ComputerCommand's Create as the engine timed it: its own log
// lines (-v=7, JSON, nanosecond times) "Provider[…].Create(<urn>) executing" and "… success" (the
// event log's timestamps are whole seconds, too coarse). That is what a stack's user waits
// for: the plugin finding the computer, connecting, staging, the exec.run, the read-back. The time
// the command ran inside (the host's clock, which a container shares) splits it in two. Then the
// Creates in flight at once (all 200, unless something serialises them: the engine checks
// resources one at a time and, on the file backend, saves the whole state before each create
// starts, so they start over seconds; PULUMI_SKIP_CHECKPOINTS=true, the engine's own switch,
// passes through to try without the saves), the plugin processes that served them and the
// plugin's peak RSS. The stack is destroyed pass or fail, and when stopped half-way (SIGINT,
// SIGTERM) too, and no container or volume with the bench's label may be left.
// Usage: node bench/exec-load.mjs [computers] [calls]   (after npm run setup)
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { stringify } from "yaml";
import { DockerProvider } from "../dist/src/docker/provider.js";
import { pluginPeak } from "./proc-memory.mjs";
import { benchStack, removeLeft, root, tools } from "./pulumi-stack.mjs";
import { onStop } from "./stop.mjs";

const run = promisify(execFile);
const computers = Number(process.argv[2] ?? 20);
const calls = Number(process.argv[3] ?? 200);
const tag = `exec-load-${randomBytes(4).toString("hex")}`;
const label = `agentrun.bench=${tag}`;
const { dir, pulumi, init, remove } = await benchStack("agentrun-bench-exec-load-", { maxBuffer: 1 << 30 });
const docker = new DockerProvider({ daemonPath: tools.daemon.amd64 });
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const spread = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return `p50 ${pct(s, 50).toFixed(0)} ms, p99 ${pct(s, 99).toFixed(0)} ms, max ${s.at(-1).toFixed(0)} ms`;
};
const parallel = String(computers + calls);

/** The program: the computers, and with commands, `calls` ComputerCommands dealt round them. */
async function program(withCommands) {
  const resources = {};
  for (let c = 0; c < computers; c++) {
    resources[`c${c}`] = {
      type: "agentrun:index:Computer",
      properties: { image: tools.baseImage, lifetimeMs: 900_000, network: "none", cpus: 0.5, memoryMb: 256, pids: 256, labels: { "agentrun.bench": tag } },
    };
  }
  const outputs = { names: Array.from({ length: computers }, (_, c) => `\${c${c}.name}`) };
  if (withCommands) {
    for (let i = 0; i < calls; i++) {
      resources[`cmd${i}`] = {
        type: "agentrun:index:ComputerCommand",
        properties: { computer: `\${c${i % computers}.name}`, command: `echo "cmd-${i} $(date +%s%N)"` },
      };
    }
    outputs.stdout = Array.from({ length: calls }, (_, i) => `\${cmd${i}.stdout}`);
  }
  const yaml = stringify({
    name: "agentrun-bench-exec-load",
    runtime: "yaml",
    plugins: { providers: [{ name: "agentrun", path: join(root, "provider/bin") }] },
    resources,
    outputs,
  });
  await writeFile(join(dir, "Pulumi.yaml"), yaml);
}

/**
 * The engine's log lines (JSON) of each ComputerCommand's call of a method (Check, Create): when
 * it began and ended (epoch ms), whether it succeeded, and which provider served it.
 */
function engineCalls(log, method) {
  const call = new RegExp(`^(Provider\\[[^\\]]*\\])\\.${method}\\(urn:\\S*::agentrun:index:ComputerCommand::cmd(\\d+)\\) (executing|success|failed)`);
  const byCommand = new Map();
  for (const text of log.split("\n")) {
    if (!text.startsWith("{")) continue;
    const entry = JSON.parse(text);
    const m = call.exec(entry.msg ?? "");
    if (!m) continue;
    const [, provider, i, what] = m;
    // RFC 3339 to the nanosecond: Date keeps the milliseconds, the digits past them are added back.
    const at = Date.parse(entry.time) + Number((/\.(\d+)/.exec(entry.time)?.[1] ?? "").padEnd(9, "0").slice(3)) / 1e6;
    const one = byCommand.get(Number(i)) ?? {};
    if (what === "executing") Object.assign(one, { start: at, provider });
    else Object.assign(one, { end: at, ok: what === "success" });
    byCommand.set(Number(i), one);
  }
  return byCommand;
}

/** The most intervals open at one instant. */
function mostAtOnce(intervals) {
  const edges = intervals
    .flatMap(({ start, end }) => [
      [start, 1],
      [end, -1],
    ])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, step] of edges) most = Math.max(most, (open += step));
  return most;
}

const connections = [];
let plugin;
// Its connections closed, the stack destroyed, then anything its label still marks removed.
const cleanup = onStop(async () => {
  plugin?.stop();
  for (const c of connections) await c.close().catch(() => undefined);
  await pulumi("destroy", "--yes", "--skip-preview", "--parallel", parallel).catch((e) =>
    console.log(
      `destroy failed: ${String(e.stdout ?? e.message)
        .trim()
        .split("\n")
        .slice(-5)
        .join("; ")}`,
    ),
  );
  const left = await removeLeft(label);
  console.log(`left after destroy: ${left.containers.length} containers, ${left.volumes.length} volumes with the bench's label (must be 0)`);
  if (left.containers.length || left.volumes.length) process.exitCode = 1;
  await remove();
});
try {
  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(" ")} at the start`,
  );
  await program(false);
  await init();
  const t0 = process.hrtime.bigint();
  await pulumi("up", "--yes", "--skip-preview", "--parallel", parallel);
  const names = JSON.parse((await pulumi("stack", "output", "names", "--json")).stdout);
  console.log(`stack: ${names.length} computers made by up in ${(ms(t0) / 1000).toFixed(1)} s`);

  // The floor: docker exec, one at a time, one per computer.
  const floor = [];
  for (const name of names) {
    const s = process.hrtime.bigint();
    await run("docker", ["exec", name, "sh", "-c", ":"]);
    floor.push(ms(s));
  }
  console.log(`floor: docker exec <c> sh -c : one at a time, ${names.length} computers: ${spread(floor)} (DESIGN's anchor: 140 ms median)`);

  // The library: one connection per computer, every call at once.
  for (const name of names) {
    const c = await docker.connect({ name, provider: "docker" });
    if (!c.ok) throw new Error(c.error.message);
    connections.push(c.value);
  }
  const latencies = [];
  let wrong = 0;
  const l0 = process.hrtime.bigint();
  const settled = await Promise.allSettled(
    Array.from({ length: calls }, async (_, i) => {
      const c = connections[i % connections.length];
      const s = process.hrtime.bigint();
      const r = await c.client.call("exec.run", { argv: ["sh", "-c", `echo call-${i}`] });
      latencies.push(ms(s));
      if (Buffer.from(r.stdout, "base64").toString() !== `call-${i}\n` || r.exitCode !== 0) wrong += 1;
    }),
  );
  const wall = ms(l0);
  const failed = settled.filter((s) => s.status === "rejected");
  console.log(
    `library: ${calls} exec.run across ${computers} computers at once: ${calls - failed.length} completed, ${failed.length} failed, ${wrong} with another's output; wall ${wall.toFixed(0)} ms`,
  );
  console.log(`  latency of each exec.run (call to reply, on an open connection): ${spread(latencies)}`);
  for (const f of failed.slice(0, 3)) console.log(`  failed: ${f.reason?.message ?? f.reason}`);
  if (failed.length || wrong) process.exitCode = 1;
  for (const c of connections.splice(0)) await c.close();

  // The plugin: the same computers, `calls` ComputerCommands in one up.
  await program(true);
  plugin = pluginPeak(dir);
  const p0 = process.hrtime.bigint();
  const up = await pulumi("up", "--yes", "--skip-preview", "--parallel", parallel, "-v=7", "--logtostderr").catch((e) => e);
  const upWall = ms(p0);
  plugin.stop();
  const upFailed = up instanceof Error;
  const outs = JSON.parse((await pulumi("stack", "output", "--json")).stdout);
  const stdout = outs.stdout ?? [];
  const timed = engineCalls(String(up.stderr ?? ""), "Create");
  const checks = [...engineCalls(String(up.stderr ?? ""), "Check").values()].filter((t) => t.end !== undefined);
  let completed = 0;
  let mixed = 0;
  const ranAt = new Map();
  for (let i = 0; i < calls; i++) {
    const m = /^cmd-(\d+) (\d+)\n$/.exec(stdout[i] ?? "");
    if (!m) continue;
    if (Number(m[1]) !== i) {
      mixed += 1;
      continue;
    }
    completed += 1;
    ranAt.set(i, Number(BigInt(m[2]) / 1000n) / 1000);
  }
  const done = [...timed.entries()].filter(([, t]) => t.ok && t.start !== undefined);
  const failedCreates = [...timed.values()].filter((t) => t.ok === false).length;
  const starts = done.map(([, t]) => t.start);
  console.log(
    `plugin: ${calls} ComputerCommands across ${computers} computers in one up (--parallel ${parallel}): ${completed} completed with their own output, ${calls - completed - mixed} lost or failed, ${mixed} with another's output; up ${upFailed ? "failed" : "exit 0"}, wall ${(upWall / 1000).toFixed(1)} s`,
  );
  console.log(
    `  creates timed by the engine: ${done.length} succeeded, ${failedCreates} failed; most in flight at once ${mostAtOnce(done.map(([, t]) => t))}; they began over ${(Math.max(...starts) - Math.min(...starts)).toFixed(0)} ms (first to last)`,
  );
  console.log(
    `  the engine checks each before its create, one at a time: ${checks.length} checks, ${spread(checks.map((t) => t.end - t.start))}, ${(checks.reduce((n, t) => n + t.end - t.start, 0) / 1000).toFixed(1)} s in all`,
  );
  const saves = String(up.stderr ?? "")
    .split("\n")
    .filter((l) => l.includes('"msg":"Saved stack')).length;
  console.log(
    `  the engine saved the stack's state ${saves} times in this up, one at a time (a create starts once its start is saved)${process.env.PULUMI_SKIP_CHECKPOINTS ? "; PULUMI_SKIP_CHECKPOINTS is set" : ""}`,
  );
  console.log(
    `  served by ${new Set(done.map(([, t]) => t.provider)).size} provider instance(s) in ${plugin.pids.size} plugin process(es) (started by ${[...plugin.pids.values()].join(", ")}); plugin peak RSS ${(plugin.peak() / 1024).toFixed(0)} MiB`,
  );
  console.log(`  latency of each ComputerCommand's create (engine's Create call to its reply): ${spread(done.map(([, t]) => t.end - t.start))}`);
  const split = done.filter(([i]) => ranAt.has(i));
  console.log(
    `    of which: create to the command running inside ${spread(split.map(([i, t]) => ranAt.get(i) - t.start))}; the command running to the reply ${spread(split.map(([i, t]) => t.end - ranAt.get(i)))}`,
  );
  if (upFailed)
    console.log(
      `  the up's last words: ${String(up.stdout ?? up.message)
        .trim()
        .split("\n")
        .slice(-8)
        .join("\n    ")}`,
    );
  if (upFailed || completed !== calls || done.length !== calls) process.exitCode = 1;
} finally {
  await cleanup();
}
