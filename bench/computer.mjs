// What the benches share: a computer made by the provider itself (its own create request, drift
// check and connection), a raw exec attached over the same Engine API the bridge uses (the
// bridge's floor: bytes through Docker's attached stream, with no daemon and no JSON), and the
// same through a unix socket in the computer reached as the provider reaches init's (the local
// socket's floor). After `npm run build`.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { onStop } from "./stop.mjs";

const ROOT = join(import.meta.dirname, "..");
const { DockerProvider } = await import(join(ROOT, "dist", "src", "docker", "index.js"));
const { DockerEngine } = await import(join(ROOT, "dist", "src", "docker", "api.js"));
const { Frames } = await import(join(ROOT, "dist", "src", "docker", "frames.js"));
const { POOL_LABEL } = await import(join(ROOT, "dist", "src", "fleet", "pool.js"));

export const toolchain = JSON.parse(readFileSync(join(ROOT, "dist", "toolchain.json"), "utf8"));
export const daemonPath = toolchain.daemon[process.arch === "arm64" ? "arm64" : "amd64"];

const byRun = { "agentrun.bench": `bench-${process.pid}` };

/**
 * A computer made as every Docker computer is, and a connection to its daemon; remove() releases
 * it by its id. extra is the spec's own (memoryMb: /work holds half of it). way says how the
 * connection went: init's socket from this machine, or the bridge (an exec was asked for). A stop
 * (SIGINT, SIGTERM) releases it too, from the moment its create starts. It carries the label
 * agentrun.bench=bench-<this process's id>, by which a run's computers are found from outside.
 */
export async function makeComputer(extra = {}) {
  let execs = 0;
  const engine = new DockerEngine(undefined, (a) => (execs += a.method === "POST" && /\/exec$/.test(a.path) ? 1 : 0));
  const docker = new DockerProvider({ daemonPath, engine });
  const making = docker.create({ image: toolchain.baseImage, lifetimeMs: 3_600_000, network: "none", ...extra, labels: { ...byRun, ...extra.labels } });
  let connection;
  // Registered as the create starts, so a stop while it is in flight awaits it and releases what it made.
  const remove = onStop(async () => {
    await connection?.close().catch(() => {});
    const made = await making.catch(() => undefined);
    if (made?.ok) await docker.release(made.value, "delete");
    await docker.engine.close();
  });
  const made = await making;
  if (!made.ok) {
    await remove();
    throw new Error(`create: ${made.error.message}`);
  }
  execs = 0;
  const connected = await docker.connect(made.value);
  if (!connected.ok) {
    await remove();
    throw new Error(`connect: ${connected.error.message}`);
  }
  connection = connected.value;
  return {
    docker,
    ref: made.value,
    client: connected.value.client,
    hello: connected.value.hello,
    way: execs === 0 ? "init's socket from this machine (no exec)" : "the bridge (an exec attached over the Engine API)",
    connect: async () => {
      const c = await docker.connect(made.value);
      if (!c.ok) throw new Error(`connect: ${c.error.message}`);
      return c.value;
    },
    /** Releases it, once: on a stop (SIGINT, SIGTERM) too. */
    remove,
  };
}

/**
 * argv run in the computer through an exec attached over the Engine API, as the bridge is: stdin
 * written from input (a Buffer, or a function given the stdin stream), stdout taken out of Docker's
 * frames and handed to onStdout. Resolves when the stream ends.
 */
export async function rawExec(computer, argv, { input, onStdout } = {}) {
  const { engine } = computer.docker;
  const made = await engine.call("POST", `/containers/${computer.ref.id}/exec`, {
    body: { AttachStdin: input !== undefined, AttachStdout: true, AttachStderr: true, Tty: false, Cmd: argv },
  });
  if (!made.ok) throw new Error(`exec ${argv.join(" ")}: ${made.message}`);
  const attached = await engine.hijack(made.value.Id);
  if (!attached.ok) throw new Error(`attach ${argv.join(" ")}: ${attached.message}`);
  const socket = attached.value;
  const frames = new Frames();
  socket.pipe(frames);
  frames.on("data", (chunk) => onStdout?.(chunk));
  const ended = new Promise((resolve, reject) => {
    frames.on("end", resolve);
    socket.on("error", reject);
  });
  if (typeof input === "function") input(socket);
  else if (input !== undefined) socket.end(input);
  await ended;
  socket.destroy();
}

/**
 * argv run in the computer with its stdin and stdout a unix socket this process connects to
 * through the computer's root in /proc, as the provider reaches init's socket (a perl listener
 * started by the daemon accepts once, then execs argv on the connection): stdin written from
 * input, stdout handed to onStdout. Resolves when the stream ends.
 */
export async function rawLocal(computer, argv, { input, onStdout } = {}) {
  const inspected = await computer.docker.engine.call("GET", `/containers/${computer.ref.id}/json`);
  const at = `/tmp/raw-${randomBytes(6).toString("hex")}.sock`;
  const listen = `use IO::Socket::UNIX; my $s = IO::Socket::UNIX->new(Type => SOCK_STREAM(), Local => shift, Listen => 1) or die $!; my $c = $s->accept; unlink $s->hostpath; open(STDIN, "<&", $c); open(STDOUT, ">&", $c); close $c; exec @ARGV or die $!`;
  await computer.client.call("process.start", { argv: ["perl", "-e", listen, at, ...argv] });
  const path = `/proc/${inspected.value.State.Pid}/root${at}`;
  let socket;
  for (let i = 0; !socket; i++) {
    socket = await new Promise((resolve) => {
      const s = net.connect(path);
      s.once("connect", () => resolve(s));
      s.once("error", () => resolve(undefined));
    });
    if (!socket) {
      if (i > 500) throw new Error(`no listener at ${at} in the computer`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
  const ended = new Promise((resolve, reject) => {
    socket.on("close", resolve);
    socket.on("error", reject);
  });
  socket.on("data", (chunk) => onStdout?.(chunk));
  if (input !== undefined) socket.end(input);
  else socket.end();
  await ended;
}

/** A warm pool's computers removed by the pool's label, each claimed one's claim record with it. */
export function removePool(poolId) {
  const left = execFileSync("docker", ["ps", "-aq", "--filter", `label=${POOL_LABEL}=${poolId}`], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
  const ids = left.map((id) => execFileSync("docker", ["inspect", "--format", "{{.Id}}", id], { encoding: "utf8" }).trim());
  if (left.length) execFileSync("docker", ["rm", "--force", "--volumes", ...left], { stdio: "ignore" });
  for (const id of ids) execFileSync("docker", ["volume", "rm", "--force", `agentrun-claim-${id}`], { stdio: "ignore" });
}

/**
 * A cold create's time to its first call beside a pool's claims: create (with the pool's label, so
 * removePool finds it after a stop), connect, then first(connection); released after. making is
 * handed the create under way, so a stop can await it.
 */
export async function coldFirst(docker, spec, poolId, first, making = () => {}) {
  const t0 = performance.now();
  const creating = docker.create({ ...spec, labels: { [POOL_LABEL]: poolId } });
  making(creating);
  const made = await creating;
  if (!made.ok) throw new Error(`cold create: ${made.error.message}`);
  const connected = await docker.connect(made.value);
  if (!connected.ok) throw new Error(`cold connect: ${connected.error.message}`);
  await first(connected.value);
  const ms = performance.now() - t0;
  await connected.value.close();
  await docker.release(made.value, "delete");
  return ms;
}
