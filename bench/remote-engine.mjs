// A Docker engine of another host, reached over TCP with TLS and over ssh, beside the same engine
// through its local socket: the bench's own second dockerd (TLS on 127.0.0.1, certificates made
// here) and an sshd of its own in front of it, as test/docker/remote-engine.test.ts starts them.
//   - create-to-ready (DockerProvider.create: create and start, the daemon put in, hello over
//     the bridge, the drift check) through TLS and through ssh, each beside the local socket's,
//     interleaved round by round (bounds: TLS ≤ 1.15×, ssh ≤ 1.5×);
//   - exec.run of `computerd version` on a remote engine's open bridge beside `docker --host
//     <same> exec <c>` of the same program, for TLS and ssh (bound: ≥ 15×).
// Every computer is released by its id, the engines' connections closed, the second dockerd and
// sshd stopped by pid and their folders removed, pass or fail.
// Run after `npm run build` (or the set-up), as root: node bench/remote-engine.mjs [rounds] [execs]
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const ROOT = join(import.meta.dirname, "..");
const { DockerProvider } = await import(join(ROOT, "dist", "src", "docker", "index.js"));
const { engineAt, tlsIn } = await import(join(ROOT, "dist", "src", "docker", "engine.js"));
const { startRemoteEngine } = await import(join(ROOT, "dist", "test", "support", "remote-engine.js"));
const toolchain = JSON.parse(readFileSync(join(ROOT, "dist", "toolchain.json"), "utf8"));

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
const remote = await startRemoteEngine(dir);
const { engine, sshd, client } = remote;
/** The engine's one image is empty but for the daemon the provider puts in: the program both sides run. */
const PROGRAM = ["/opt/agentrun/computerd", "version"];
const spec = { image: engine.image, lifetimeMs: 600_000, network: "none", cpus: 0.5, memoryMb: 256, pids: 64 };
const provider = (address) => new DockerProvider({ daemonPath: toolchain.daemon.amd64, daemonCache: join(dir, "cache"), engine: address });
const local = provider(must(engineAt(engine.address, "the bench's engine"), "the local socket"));
const tls = provider(must(engineAt(engine.tcp, "the bench's engine", { tls: tlsIn(client) }), "TLS"));
const ssh = provider(must(engineAt(sshd.address, "the bench's engine", { ssh: sshd.ssh }), "ssh"));
// The docker CLI's own ssh helper runs `ssh` from PATH: this one carries the bench's config.
const bin = join(dir, "bin");
await run("mkdir", ["-p", bin]);
writeFileSync(join(bin, "ssh"), `#!/bin/sh\nexec /usr/bin/ssh ${sshd.ssh.slice(1).join(" ")} "$@"\n`, { mode: 0o755 });
const cli = {
  tls: ["--host", engine.tcp, "--tlsverify", "--tlscacert", join(client, "ca.pem"), "--tlscert", join(client, "cert.pem"), "--tlskey", join(client, "key.pem")],
  ssh: ["--host", sshd.address],
};
const cliEnv = { ...process.env, PATH: `${bin}:${process.env.PATH}` };

/** One create-to-ready, timed, then released (not timed). */
async function timedCreate(p) {
  const t0 = performance.now();
  const ref = must(await p.create(spec), "create");
  const took = performance.now() - t0;
  must(await p.release(ref, "delete"), "release");
  return took;
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
const held = setInterval(() => {}, 60_000);
try {
  console.log(`load before: ${load()} (1, 5, 15 min; ${(await run("nproc")).stdout.trim()} cores)`);
  // One create each first: the host read and the daemon's copy or archive are once per provider.
  for (const p of [local, tls, ssh]) await timedCreate(p);
  const times = { local: [], tls: [], ssh: [] };
  for (let i = 0; i < rounds; i++) {
    times.local.push(await timedCreate(local));
    times.tls.push(await timedCreate(tls));
    times.ssh.push(await timedCreate(ssh));
  }
  const [l, t, s] = [median(times.local), median(times.tls), median(times.ssh)];
  console.log(`create-to-ready, median of ${rounds}, on one engine (the bench's second dockerd):`);
  console.log(`  through TLS on the loopback: ${ms(t)} beside its local socket's ${ms(l)}: ${(t / l).toFixed(2)}x (bound <= 1.15x)`);
  console.log(`  through ssh:                 ${ms(s)} beside its local socket's ${ms(l)}: ${(s / l).toFixed(2)}x (bound <= 1.5x)`);
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
  for (const p of [local, tls, ssh]) await p.engine.close();
  await remote.dispose();
  clearInterval(held);
}
