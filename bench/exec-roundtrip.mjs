// exec.run(["true"]) round trip on an open connection to computerd, beside `docker exec <c> true`
// on the same container in the same run; also the binary's size and the daemon's idle RSS after
// the runs. The computer is the provider's own (its create, its connection: init's socket from
// this machine on an engine here, else the bridge, an exec attached over the Engine API; the
// output says which), released by its id at the end.
//
//   node bench/exec-roundtrip.mjs [runs]     (default 200; needs dist/ from scripts/build-daemon.sh)
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { busyMs } from "./proc-memory.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const { makeComputer, daemonPath, toolchain } = await import(resolve(root, "bench/computer.mjs"));
const runs = Number(process.argv[2] ?? 200);
const arch = process.arch === "arm64" ? "arm64" : "amd64";
const binary = daemonPath;
const image = toolchain.baseImage;

const quantile = (xs, q) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};
const ms = (x) => `${x.toFixed(2)} ms`;
// Every process's CPU in ms (/proc/<pid>/stat utime+stime, and cutime+cstime: what it reaped),
// so a run's cost can be split by who pays it: init, the guards and programs init reaps, the
// bridge, Docker's relay, this process.
const processCpu = () => {
  const all = new Map();
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    let text;
    try {
      text = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    const f = text
      .slice(text.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    all.set(Number(pid), { comm: text.slice(text.indexOf("(") + 1, text.lastIndexOf(")")), self: (f[11] + f[12]) * 10, reaped: (f[13] + f[14]) * 10 });
  }
  return all;
};
/** Per run, by payer, most first: init alone, what init reaped, then every other process by name. */
function payers(before, after, initPid, runs) {
  const by = new Map();
  const add = (who, msTotal) => msTotal > 0 && by.set(who, (by.get(who) ?? 0) + msTotal / runs);
  for (const [pid, a] of after) {
    const b = before.get(pid) ?? { self: 0, reaped: 0 };
    if (pid === initPid) {
      add("init", a.self - b.self);
      add("its guards and programs", a.reaped - b.reaped);
    } else add(pid === process.pid ? "this process" : a.comm === "computerd" ? "computerd stdio (the bridge)" : a.comm, a.self - b.self + a.reaped - b.reaped);
  }
  return [...by]
    .sort((x, y) => y[1] - x[1])
    .slice(0, 6)
    .map(([who, t]) => `${who} ${ms(t)}`)
    .join(", ");
}

const size = statSync(binary).size;
const computer = await makeComputer();
const name = computer.ref.name;
try {
  const { hello, client } = computer;
  const call = (method, params) => client.call(method, params);

  for (let i = 0; i < 20; i++) await call("exec.run", { argv: ["true"] });
  const initPid = (await computer.docker.engine.call("GET", `/containers/${computer.ref.id}/json`)).value.State.Pid;
  const rpc = [];
  const perProcess = processCpu();
  let busy = busyMs();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = await call("exec.run", { argv: ["true"] });
    rpc.push(performance.now() - t0);
    if (r.exitCode !== 0) throw new Error(`exec.run(["true"]) exited ${r.exitCode}`);
  }
  const runCpu = (busyMs() - busy) / runs;
  const paid = payers(perProcess, processCpu(), initPid, runs);
  const pings = [];
  busy = busyMs();
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await call("ping", {});
    pings.push(performance.now() - t0);
  }
  const pingCpu = (busyMs() - busy) / runs;
  // What one start of this binary costs (a guard's; run after run is served by the guard that
  // waits, so none is on a run's path): a run of `computerd --version`
  // less a run of true, in alternating blocks so that whatever else the machine does falls on
  // both, each side's median block taken.
  const blockCpu = { true: [], version: [] };
  for (let b = 0; b < 10; b++) {
    for (const [kind, argv] of [
      ["true", ["true"]],
      ["version", ["/opt/agentrun/computerd", "--version"]],
    ]) {
      const before = busyMs();
      for (let i = 0; i < 50; i++) await call("exec.run", { argv });
      blockCpu[kind].push((busyMs() - before) / 50);
    }
  }
  const startCpu = quantile(blockCpu.version, 0.5) - quantile(blockCpu.true, 0.5);
  const dockerRuns = Math.min(30, runs);
  const dex = [];
  for (let i = 0; i < dockerRuns; i++) {
    const t0 = performance.now();
    const r = spawnSync("docker", ["exec", name, "true"]);
    dex.push(performance.now() - t0);
    if (r.status !== 0) throw new Error("docker exec true failed");
  }
  await new Promise((r) => setTimeout(r, 1000));
  const status = (await call("exec.run", { argv: ["cat", "/proc/1/status"] })).stdout;
  const rss = /VmRSS:\s+(\d+) kB/.exec(Buffer.from(status, "base64").toString())[1];

  const med = quantile(rpc, 0.5);
  const dmed = quantile(dex, 0.5);
  console.log(`computerd ${hello.version} ${hello.arch}, image ${image}; the connection: ${computer.way}`);
  console.log(`exec.run(["true"]) over it: median ${ms(med)}, p99 ${ms(quantile(rpc, 0.99))} (${runs} runs)`);
  console.log(`ping over it (the transport alone): median ${ms(quantile(pings, 0.5))}, p99 ${ms(quantile(pings, 0.99))}`);
  console.log(`docker exec <c> true:               median ${ms(dmed)}, p99 ${ms(quantile(dex, 0.99))} (${dockerRuns} runs)`);
  console.log(`speed-up at the median: ${(dmed / med).toFixed(1)}x (goal: 35x or more)`);
  console.log(
    `machine CPU per call, every process on the path: exec.run ${ms(runCpu)}, ping ${ms(pingCpu)}; ` +
      `with ${availableParallelism()} CPUs, back-to-back runs take at least ${ms(runCpu / availableParallelism())} each`,
  );
  console.log(`who pays an exec.run's CPU (the busiest six): ${paid}`);
  console.log(`one start of computerd (a guard's, off the run's path) costs ${ms(startCpu)} of CPU more than one of true (median of 10 blocks of 50 each)`);
  console.log(`binary dist/computerd-linux-${arch}: ${size} bytes (${(size / 1e6).toFixed(2)} MB; the spec's amd64 is 4.2 MB)`);
  console.log(`init's RSS, idle after ${runs + 1021} runs: ${rss} kB`);
} finally {
  await computer.remove();
}
