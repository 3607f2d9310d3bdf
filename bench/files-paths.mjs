#!/usr/bin/env node
// Where a file's bytes spend their time: writeFile and readFile of 100 MiB through the same
// computerd over three paths, each adding one hop: its unix socket directly (the daemon and
// this process alone), the `computerd stdio` bridge, and that bridge in a computer the provider
// made, reached as every Docker computer is (an exec attached over the Engine API). Beside them,
// the same bytes raw through an exec attached the same way.
//
// On the host's socket it also prints the CPU seconds this process and computerd spent, which the
// machine's load does not move as it moves the times.
//
// Usage: npm run build && node bench/files-paths.mjs [--host]   (--host: the host's socket alone)
// The host path runs `computerd init` on this host with its socket in a temporary directory:
// it needs a user that can drop every capability (root, or one with an empty bounding set). The
// daemon here, the computer and the folder go at the end, and when stopped half-way (SIGINT, SIGTERM) too.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..");
const { DaemonClient, readFile, writeFile } = await import(join(ROOT, "dist", "src", "index.js"));
const { daemonPath: daemon, makeComputer, rawExec } = await import(join(ROOT, "bench", "computer.mjs"));
const { onStop } = await import(join(ROOT, "bench", "stop.mjs"));
const MiB = 1 << 20;
const SIZE = 100 * MiB;
const dir = mkdtempSync(join(tmpdir(), "agentrun-paths-"));
chmodSync(dir, 0o700);
const socket = join(dir, "computerd.sock");
let computer;
const bytes = randomBytes(SIZE);
const rows = [];

/** A process's CPU seconds so far (user and system), from /proc: the machine's load does not move it. */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Each path's time, and where the host's daemon runs, the CPU this process and computerd spent. */
async function measure(path, client, folder, daemonPid) {
  await client.call("hello", { client: "bench" });
  for (const [what, fn] of [
    ["writeFile", () => writeFile(client, `${folder}/f`, bytes)],
    ["readFile", () => readFile(client, `${folder}/f`)],
  ]) {
    const cpu0 = process.cpuUsage();
    const daemon0 = daemonPid ? cpuOf(daemonPid) : 0;
    const t0 = process.hrtime.bigint();
    const result = await fn();
    if (!result.ok) throw new Error(`${what} over ${path}: ${result.error.message}`);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    const cpu = process.cpuUsage(cpu0);
    const cpus = daemonPid ? `   cpu: client ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s, computerd ${(cpuOf(daemonPid) - daemon0).toFixed(2)} s` : "";
    rows.push(`${`${what} 100 MiB`.padEnd(20)} ${path.padEnd(28)} ${s.toFixed(2).padStart(6)} s ${(SIZE / MiB / s).toFixed(0).padStart(5)} MiB/s${cpus}`);
  }
  await client.close();
}

async function timed(label, fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  rows.push(`${label.padEnd(49)} ${s.toFixed(2).padStart(6)} s ${(SIZE / MiB / s).toFixed(0).padStart(5)} MiB/s`);
}

const init = spawn(daemon, ["init", "--deadline", new Date(Date.now() + 600_000).toISOString()], {
  env: { AGENTRUN_COMPUTERD_SOCKET: socket, HOME: dir, PATH: "/usr/bin:/bin" },
  stdio: ["ignore", "ignore", "inherit"],
});
// From the folder to this point nothing awaits, so a stop finds dir and init made.
const cleanup = onStop(async () => {
  init.kill("SIGTERM");
  await computer?.remove().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
});
try {
  for (let i = 0; i < 50; i++) {
    const ready = await new Promise((resolve) =>
      connect(socket)
        .once("connect", function () {
          this.destroy();
          resolve(true);
        })
        .once("error", () => resolve(false)),
    );
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const direct = connect(socket);
  await new Promise((resolve, reject) => direct.once("connect", resolve).once("error", reject));
  await measure("host: unix socket", new DaemonClient(direct), dir, init.pid);
  if (!process.argv.includes("--host")) {
    const bridge = spawn(daemon, ["stdio"], { env: { AGENTRUN_COMPUTERD_SOCKET: socket }, stdio: ["pipe", "pipe", "inherit"] });
    await measure("host: computerd stdio", new DaemonClient({ readable: bridge.stdout, writable: bridge.stdin }), dir);

    computer = await makeComputer({ memoryMb: 1200 });
    await measure("container: attached exec", computer.client, "/work");

    // The same bytes as base64 (what a file's chunks carry) through a bare attached exec.
    const b64 = Buffer.from(bytes.toString("base64"));
    await timed("raw attached exec in (100 MiB as base64)", () => rawExec(computer, ["sh", "-c", "cat > /dev/null"], { input: b64 }));
    await timed("raw attached exec out (100 MiB as base64)", () =>
      rawExec(computer, ["sh", "-c", `head -c ${Math.ceil(SIZE / 3) * 4} /dev/zero`], { onStdout: () => {} }),
    );
  }
  console.log(`computerd at ${daemon}; one run each; 100 MiB of random bytes`);
  for (const row of rows) console.log(row);
} finally {
  await cleanup();
}
