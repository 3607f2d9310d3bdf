#!/usr/bin/env node
// Where a file's bytes spend their time: writeFile and readFile of 100 MiB through the same
// computerd over three paths, each adding one hop: its unix socket directly (the daemon and
// this process alone), the `computerd stdio` bridge, and `docker exec -i` of that bridge (as a
// Docker computer is reached). Beside them, raw `docker exec -i` pipes of the same bytes.
//
// Usage: npm run build && node bench/files-paths.mjs
// The host path runs `computerd init` on this host with its socket in a temporary directory:
// it needs a user that can drop every capability (root, or one with an empty bounding set).
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const ROOT = join(import.meta.dirname, "..");
const { DaemonClient, readFile, writeFile } = await import(join(ROOT, "dist", "src", "index.js"));
const run = promisify(execFile);
const MiB = 1 << 20;
const SIZE = 100 * MiB;
const toolchain = JSON.parse(readFileSync(join(ROOT, "dist", "toolchain.json"), "utf8"));
const daemon = toolchain.daemon[process.arch === "arm64" ? "arm64" : "amd64"];
const dir = mkdtempSync(join(tmpdir(), "agentrun-paths-"));
chmodSync(dir, 0o700);
const socket = join(dir, "computerd.sock");
const name = `agentrun-lib-paths-${randomBytes(4).toString("hex")}`;
const bytes = randomBytes(SIZE);
const rows = [];

async function measure(path, client, folder) {
  await client.call("hello", { client: "bench" });
  for (const [what, fn] of [
    ["writeFile", () => writeFile(client, `${folder}/f`, bytes)],
    ["readFile", () => readFile(client, `${folder}/f`)],
  ]) {
    const t0 = process.hrtime.bigint();
    const result = await fn();
    if (!result.ok) throw new Error(`${what} over ${path}: ${result.error.message}`);
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    rows.push(`${`${what} 100 MiB`.padEnd(20)} ${path.padEnd(28)} ${s.toFixed(2).padStart(6)} s ${(SIZE / MiB / s).toFixed(0).padStart(5)} MiB/s`);
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
try {
  for (let i = 0; i < 50; i++) {
    const ready = await new Promise((resolve) => connect(socket).once("connect", function () { this.destroy(); resolve(true); }).once("error", () => resolve(false)));
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const direct = connect(socket);
  await new Promise((resolve, reject) => direct.once("connect", resolve).once("error", reject));
  await measure("host: unix socket", new DaemonClient(direct), dir);
  const bridge = spawn(daemon, ["stdio"], { env: { AGENTRUN_COMPUTERD_SOCKET: socket }, stdio: ["pipe", "pipe", "inherit"] });
  await measure("host: computerd stdio", new DaemonClient({ readable: bridge.stdout, writable: bridge.stdin }), dir);

  await run("docker", [
    "run", "--detach", "--name", name, "--user", "1000:1000", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
    "--network", "none", "--tmpfs", "/run/agentrun:uid=1000,gid=1000,mode=0700,noexec,nosuid,nodev,size=1m",
    "--tmpfs", "/work:uid=1000,gid=1000,mode=0700,exec,nosuid,nodev,size=600m", "--env", "HOME=/work",
    "--mount", `type=bind,src=${daemon},dst=/opt/agentrun/computerd,readonly`, "--entrypoint", "/opt/agentrun/computerd",
    toolchain.baseImage, "init", "--deadline", new Date(Date.now() + 600_000).toISOString(),
  ]);
  const exec = spawn("docker", ["exec", "-i", name, "/opt/agentrun/computerd", "stdio"], { stdio: ["pipe", "pipe", "inherit"] });
  await measure("container: docker exec -i", new DaemonClient({ readable: exec.stdout, writable: exec.stdin }), "/work");

  // The same bytes as base64 (what a file's chunks carry) through a bare docker exec pipe.
  const b64 = join(dir, "b64");
  writeFileSync(b64, bytes.toString("base64"));
  await timed("raw docker exec -i in (100 MiB as base64)", () => run("sh", ["-c", `docker exec -i ${name} sh -c 'cat > /dev/null' < ${b64}`]));
  await timed("raw docker exec out (100 MiB as base64)", () =>
    run("sh", ["-c", `docker exec ${name} sh -c 'head -c ${Math.ceil(SIZE / 3) * 4} /dev/zero' > /dev/null`]),
  );
  console.log(`computerd at ${daemon}; one run each; 100 MiB of random bytes`);
  for (const row of rows) console.log(row);
} finally {
  init.kill("SIGTERM");
  await run("docker", ["rm", "--force", name]).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
