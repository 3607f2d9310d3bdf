// A Docker engine of another host, reached over TCP with TLS and over ssh, beside the same engine
// through its local socket: the bench's own second dockerd (TLS on 127.0.0.1, certificates made
// here) and an sshd of its own in front of it, as test/docker/remote-engine.test.ts starts them.
//   - create-to-ready (DockerProvider.create: create and start, the daemon put in, hello over
//     the bridge, the drift check) through TLS and through ssh, each beside the local socket's,
//     interleaved round by round (bounds: TLS ≤ 1.15×, ssh ≤ 1.5×), for two images: the engine's
//     empty one (no /etc, so the local path puts no archive and the remote one puts the daemon),
//     and the set-up's base loaded onto that engine (an /etc to name the user in: one archive
//     put on both paths, the remote one's carrying the daemon too);
//   - where a create's time goes: each Engine API call's median start and length on each path, and
//     what an archive put costs by itself: a 10-byte file's and the daemon's into a container made
//     and not started, through the local socket (the engine's extraction, whatever the size);
//   - exec.run of `computerd version` on a remote engine's open bridge beside `docker --host
//     <same> exec <c>` of the same program, for TLS and ssh (bound: ≥ 15×).
// Every computer is released by its id, the engines' connections closed, the second dockerd and
// sshd stopped by pid and their folders removed, pass or fail, and when stopped half-way (SIGINT,
// SIGTERM) too: the engine is then awaited if it was starting, and it removes every container on it.
// Run after `npm run build` (or the set-up), as root: node bench/remote-engine.mjs [rounds] [execs]
// [newer] (newer: the engine is the dockerd v28.5.2 scripts/toolchain/build-dockerd.sh built, not
// Debian's 20.10, whose every archive put re-runs it as docker-untar)
import childProcess, { execFile } from "node:child_process";
import { syncBuiltinESMExports } from "node:module";
import nodeTls from "node:tls";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const ROOT = join(import.meta.dirname, "..");
const { DockerProvider } = await import(join(ROOT, "dist", "src", "docker", "index.js"));
const { DockerEngine } = await import(join(ROOT, "dist", "src", "docker", "api.js"));
const { tarOf } = await import(join(ROOT, "dist", "src", "kits", "image", "tar.js"));
const { daemonFile } = await import(join(ROOT, "dist", "src", "docker", "remote.js"));
const { engineAt, tlsIn } = await import(join(ROOT, "dist", "src", "docker", "engine.js"));
const { startRemoteEngine } = await import(join(ROOT, "dist", "test", "support", "remote-engine.js"));
const { newerEngine } = await import(join(ROOT, "dist", "test", "support", "second-engine.js"));
const toolchain = JSON.parse(readFileSync(join(ROOT, "dist", "toolchain.json"), "utf8"));
const { onStop } = await import(join(ROOT, "bench", "stop.mjs"));

const rounds = Number(process.argv[2] ?? 7);
const execs = Number(process.argv[3] ?? 50);
const run = promisify(execFile);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;
const must = (r, what) => {
  if (!r.ok) throw new Error(`${what}: ${r.error.message}`);
  return r.value;
};
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

const dir = realpathSync(mkdtempSync(join(tmpdir(), "agentrun-bench-remote-")));
/** The engine while it starts, the providers on it, and what holds the event loop. */
let starting;
const providers = [];
let held;
const cleanup = onStop(async () => {
  for (const p of providers) await p.engine.close();
  const remote = await starting?.catch(() => undefined);
  if (remote) await remote.dispose();
  else rmSync(dir, { recursive: true, force: true });
  clearInterval(held);
});
let newer;
if (process.argv[4] === "newer") {
  newer = newerEngine();
  if ("skipped" in newer) throw new Error(`${newer.skipped}; build it with bash scripts/toolchain/build-dockerd.sh`);
}
const remote = await (starting = startRemoteEngine(dir, newer));
const { engine, sshd, client } = remote;
/** The engine's one image is empty but for the daemon the provider puts in: the program both sides run. */
const PROGRAM = ["/opt/agentrun/computerd", "version"];
const spec = { image: engine.image, lifetimeMs: 600_000, network: "none", cpus: 0.5, memoryMb: 256, pids: 64 };
const images = { empty: engine.image, base: toolchain.baseImage };
const provider = (address) => new DockerProvider({ daemonPath: toolchain.daemon.amd64, daemonCache: join(dir, "cache"), engine: address });
const local = provider(must(engineAt(engine.address, "the bench's engine"), "the local socket"));
const tls = provider(must(engineAt(engine.tcp, "the bench's engine", { tls: tlsIn(client) }), "TLS"));
const ssh = provider(must(engineAt(sshd.address, "the bench's engine", { ssh: sshd.ssh }), "ssh"));
providers.push(local, tls, ssh);
// The docker CLI's own ssh helper runs `ssh` from PATH: this one carries the bench's config.
const bin = join(dir, "bin");
await run("mkdir", ["-p", bin]);
writeFileSync(join(bin, "ssh"), `#!/bin/sh\nexec /usr/bin/ssh ${sshd.ssh.slice(1).join(" ")} "$@"\n`, { mode: 0o755 });
const cli = {
  tls: ["--host", engine.tcp, "--tlsverify", "--tlscacert", join(client, "ca.pem"), "--tlscert", join(client, "cert.pem"), "--tlskey", join(client, "key.pem")],
  ssh: ["--host", sshd.address],
};
const cliEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}` };

/** The Engine API calls of the create being timed: what, when it started (from the create's start) and how long it took. */
let calls;
/** New connections to the engine while a create is timed: TLS handshakes, and ssh sessions running dial-stdio. */
let dials = 0;
const { connect } = nodeTls;
nodeTls.connect = (...args) => {
  dials += 1;
  return connect(...args);
};
const { spawn } = childProcess;
childProcess.spawn = (command, args, ...rest) => {
  if (args?.includes("dial-stdio")) dials += 1;
  return spawn(command, args, ...rest);
};
syncBuiltinESMExports();
const pathOf = (p) => p.replace(/[0-9a-f]{64}/g, "{id}").replace(/^\/exec\/[^/]+/, "/exec/{exec}");
for (const method of ["call", "raw", "hijack"]) {
  const original = DockerEngine.prototype[method];
  DockerEngine.prototype[method] = async function (...args) {
    const t0 = performance.now();
    const reply = await original.apply(this, args);
    calls?.push({ what: method === "hijack" ? "POST /exec/{exec}/start (attached)" : `${args[0]} ${pathOf(args[1])}`, at: t0, ms: performance.now() - t0 });
    return reply;
  };
}

/** One create-to-ready of image, timed with its calls, then released (not timed). */
async function timedCreate(p, image) {
  calls = [];
  dials = 0;
  const t0 = performance.now();
  const ref = must(await p.create({ ...spec, image }), "create");
  const took = performance.now() - t0;
  const made = calls.map((c) => ({ ...c, at: c.at - t0 }));
  calls = undefined;
  const dialed = dials;
  must(await p.release(ref, "delete"), "release");
  return { took, calls: made, dials: dialed };
}

/** Each call's median start and length over runs of the same create (the calls in the order the first run made them). */
function callsOf(runs) {
  return runs[0].calls.map(({ what }, i) => {
    const at = median(runs.map((r) => r.calls[i]?.at ?? Infinity));
    const took = median(runs.map((r) => r.calls[i]?.ms ?? Infinity));
    return `      ${what.padEnd(42)} at ${at.toFixed(0).padStart(5)} ms, ${took.toFixed(0).padStart(4)} ms`;
  });
}

/** exec.run(PROGRAM) on one open bridge, execs times, beside `docker --host … exec` rounds times on the same computer. */
async function execBeside(p, flags) {
  const ref = must(await p.create(spec), "create");
  try {
    const connection = must(await p.connect(ref), "connect");
    const bridge = [];
    const anchor = [];
    try {
      for (let i = 0; i < 3; i++) await connection.client.call("exec.run", { argv: PROGRAM, timeoutMs: 10_000 });
      for (let i = 0; i < execs; i++) {
        const t0 = performance.now();
        const ran = await connection.client.call("exec.run", { argv: PROGRAM, timeoutMs: 10_000 });
        bridge.push(performance.now() - t0);
        if (ran.exitCode !== 0) throw new Error(`exec.run: ${JSON.stringify(ran).slice(0, 300)}`);
      }
    } finally {
      await connection.close();
    }
    await run("docker", [...flags, "exec", ref.id, ...PROGRAM], { env: cliEnv });
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      await run("docker", [...flags, "exec", ref.id, ...PROGRAM], { env: cliEnv });
      anchor.push(performance.now() - t0);
    }
    return { bridge: median(bridge), anchor: median(anchor) };
  } finally {
    await p.release(ref, "delete");
  }
}

// Idle connections and the second dockerd (detached) do not hold the event loop, so the bench
// holds it until the engine is stopped.
held = setInterval(() => {}, 60_000);
try {
  // The set-up's base onto the bench's engine, as a user's image is built or pulled there.
  await run("sh", ["-c", `docker save ${toolchain.baseImage} | docker --host ${engine.address} load`], { maxBuffer: 1 << 20 });
  console.log(`load before: ${load()} (1, 5, 15 min; ${(await run("nproc")).stdout.trim()} cores)`);
  console.log(`engine: ${(await engine.docker("version", "--format", "{{.Server.Version}}")).stdout} (${newer ? "the newer one built here" : "Debian's"})`);
  {
    const made = (await run("docker", ["--host", engine.address, "create", "--network", "none", engine.image, "/x"])).stdout.trim();
    const socket = new DockerEngine(engine.address);
    const archives = {
      small: tarOf([{ path: "x", mode: 0o644, bytes: Buffer.from("ten bytes\n") }]),
      daemon: tarOf([daemonFile(readFileSync(toolchain.daemon.amd64))]),
    };
    const took = { small: [], daemon: [] };
    try {
      for (let i = 0; i < rounds + 1; i++) {
        for (const [name, body] of Object.entries(archives)) {
          const t0 = performance.now();
          const put = await socket.call("PUT", `/containers/${made}/archive`, { query: { path: "/" }, body });
          if (!put.ok) throw new Error(`the archive put: ${put.message}`);
          if (i > 0) took[name].push(performance.now() - t0);
        }
      }
    } finally {
      await socket.close();
      await run("docker", ["--host", engine.address, "rm", "--force", made]);
    }
    console.log(
      `an archive put into a container made and not started, through the local socket, median of ${rounds}: a 10-byte file ${ms(median(took.small))}, the daemon (${archives.daemon.length} bytes) ${ms(median(took.daemon))}`,
    );
  }
  for (const [name, image] of Object.entries(images)) {
    // One create each first: the host read, the daemon's copy or file and the image's /etc are once per provider.
    for (const p of [local, tls, ssh]) await timedCreate(p, image);
    const runs = { local: [], tls: [], ssh: [] };
    for (let i = 0; i < rounds; i++) {
      runs.local.push(await timedCreate(local, image));
      runs.tls.push(await timedCreate(tls, image));
      runs.ssh.push(await timedCreate(ssh, image));
    }
    const [l, t, s] = [runs.local, runs.tls, runs.ssh].map((r) => median(r.map((x) => x.took)));
    console.log(
      `create-to-ready of ${name === "empty" ? "the engine's empty image (no /etc)" : `the set-up's base ${image}`}, median of ${rounds}, on one engine (the bench's second dockerd):`,
    );
    console.log(`  through TLS on the loopback: ${ms(t)} beside its local socket's ${ms(l)}: ${(t / l).toFixed(2)}x (bound <= 1.15x)`);
    console.log(`  through ssh:                 ${ms(s)} beside its local socket's ${ms(l)}: ${(s / l).toFixed(2)}x (bound <= 1.5x)`);
    for (const [way, r] of Object.entries(runs)) {
      const dialed = way === "local" ? "" : `, ${median(r.map((x) => x.dials))} new connection(s) per create`;
      console.log([`    the Engine API calls through ${way === "local" ? "the local socket" : way}${dialed}:`, ...callsOf(r)].join("\n"));
    }
  }
  for (const [name, p] of [
    ["TLS", tls],
    ["ssh", ssh],
  ]) {
    const { bridge, anchor } = await execBeside(p, cli[name.toLowerCase()]);
    console.log(
      `exec.run(${JSON.stringify(PROGRAM)}) through ${name}'s bridge, median of ${execs}: ${bridge.toFixed(2)} ms beside \`docker --host ${cli[name.toLowerCase()][1]} exec\`, median of ${rounds}: ${ms(anchor)}: ${(anchor / bridge).toFixed(1)}x faster (bound >= 15x)`,
    );
  }
  console.log(`load after: ${load()}`);
} finally {
  await cleanup();
}
