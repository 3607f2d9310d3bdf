// A Docker engine of the test's own, beside the shared one: its own socket, data root, exec root,
// pidfile and bridge, and no iptables, so restarting it touches nothing of anyone else's. Never
// --bridge=none: dockerd then deletes the host's docker0, the shared engine's bridge. Its one
// image is empty (a computer needs nothing but the daemon the provider binds in). Needs root and
// `ip`, as the set-up's engine does. With tls, it listens on 127.0.0.1 too, TLS verified both ways.
// By default it is Debian's dockerd (20.10); with newer, the dockerd v28.5.2 the set-up's
// toolchain script built from Go modules (newerEngine() says whether it is there, or why not).
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rm, writeFile } from "node:fs/promises";
import { execa } from "execa";
import { ROOT } from "./toolchain.js";

export interface SecondEngine {
  /** unix:///run/…/docker.sock, for agentrun:docker.engine. */
  address: string;
  /** tcp://127.0.0.1:<port>, when it was started with tls. */
  tcp?: string;
  /** An empty image on it. */
  image: string;
  /** The docker CLI against it. */
  docker(...args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  /** SIGTERM to dockerd by its pid (its containers stop with it), then started again. */
  restart(): Promise<void>;
  /** Every container on it removed, dockerd stopped, its folders removed. */
  dispose(): Promise<void>;
}

const READY_MS = 120_000;

/** A port on 127.0.0.1 nothing listens on now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The newer engine, built: its folder (dockerd, docker-proxy). */
export type NewerEngine = { bin: string };

/**
 * Whether the newer engine is built, asked of its build script (which never builds with --built):
 * its folder, or why not in words, for a test to skip in.
 */
export function newerEngine(): NewerEngine | { skipped: string } {
  const asked = spawnSync("bash", [`${ROOT}/scripts/toolchain/build-dockerd.sh`, "--built"], { encoding: "utf8", timeout: 60_000 });
  const bin = /^DOCKERD_BIN=(.+)$/m.exec(asked.stdout ?? "")?.[1];
  if (asked.status === 10 && bin) return { bin };
  const why = (asked.stderr ?? "").trim().replace(/^\[setup\] /, "") || `its build script answered ${asked.status ?? asked.signal}`;
  return { skipped: `the newer Docker engine is not here (${why})` };
}

/**
 * tls: the engine's CA, certificate and key, for a listener on 127.0.0.1 that verifies its clients
 * by that CA. newer: the newer engine's folder (newerEngine()), which runs on a containerd of its
 * own that it starts from PATH under its exec root (Debian's 1.6.20; the cluster's v2.4.2 runs it
 * too when its folder is first on PATH), in a namespace of its own.
 */
export async function startSecondEngine(options: { tls?: { ca: string; cert: string; key: string }; newer?: NewerEngine } = {}): Promise<SecondEngine> {
  const tag = randomBytes(4).toString("hex");
  const data = `/var/lib/agentrun-faults-${tag}`;
  const run = `/run/agentrun-f${tag}`;
  const socket = `${run}/docker.sock`;
  const pidfile = `${run}/docker.pid`;
  // Its own bridge, in a private /24 no route on this host uses.
  const bridge = `agf${tag}`;
  const routes = (await execa("ip", ["-4", "route"])).stdout;
  const third = Array.from({ length: 200 }, (_, i) => ((Number.parseInt(tag.slice(0, 2), 16) + i) % 200) + 20).find((x) => !routes.includes(`10.251.${x}.`));
  if (third === undefined) throw new Error("no free 10.251.x.0/24 for the second engine's bridge");
  await execa("ip", ["link", "add", "name", bridge, "type", "bridge"]);
  await execa("ip", ["addr", "add", `10.251.${third}.1/24`, "dev", bridge]);
  await execa("ip", ["link", "set", bridge, "up"]);
  await mkdir(data, { recursive: true });
  await mkdir(run, { recursive: true });
  const address = `unix://${socket}`;
  const tcp = options.tls ? `tcp://127.0.0.1:${await freePort()}` : undefined;
  const listen = options.tls
    ? [`--host=${tcp}`, "--tlsverify", `--tlscacert=${options.tls.ca}`, `--tlscert=${options.tls.cert}`, `--tlskey=${options.tls.key}`]
    : [];
  const docker = async (...args: string[]) => {
    const r = await execa("docker", ["-H", address, ...args], { reject: false, timeout: 60_000 });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout).trim(), stderr: String(r.stderr).trim() };
  };
  let exited: Promise<void> = Promise.resolve();
  const start = async () => {
    const log = await open(`${data}/dockerd.log`, "a");
    const child = spawn(
      options.newer ? `${options.newer.bin}/dockerd` : "dockerd",
      [
        `--host=${address}`,
        ...listen,
        ...(options.newer ? [`--containerd-namespace=agentrun-${tag}`, `--containerd-plugins-namespace=agentrun-${tag}-plugins`] : []),
        `--data-root=${data}/root`,
        `--exec-root=${run}/exec`,
        `--pidfile=${pidfile}`,
        `--bridge=${bridge}`,
        "--iptables=false",
        "--ip-masq=false",
        "--ip-forward=false",
        "--userland-proxy=false",
      ],
      { stdio: ["ignore", log.fd, log.fd], detached: true },
    );
    exited = new Promise((resolve) => child.once("exit", () => resolve()));
    child.unref();
    await log.close();
    const end = Date.now() + READY_MS;
    while ((await docker("version", "--format", "{{.Server.Version}}")).exitCode !== 0) {
      if (Date.now() > end)
        throw new Error(`the second Docker engine did not answer in ${READY_MS / 1000} s: ${(await readFile(`${data}/dockerd.log`, "utf8")).slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  };
  const stop = async () => {
    const pid = Number((await readFile(pidfile, "utf8").catch(() => "")).trim());
    if (pid > 0) {
      process.kill(pid, "SIGTERM");
      await exited;
    }
  };
  await start();
  await writeFile(`${data}/empty.tar`, Buffer.alloc(1024)); // a tar of no files: two zero blocks
  const imported = await docker("import", `${data}/empty.tar`, "agentrun-empty:faults");
  if (imported.exitCode !== 0) throw new Error(`the empty image could not be imported: ${imported.stderr}`);
  return {
    address,
    ...(tcp ? { tcp } : {}),
    image: "agentrun-empty:faults",
    docker,
    restart: async () => {
      await stop();
      await start();
    },
    dispose: async () => {
      const all = (await docker("ps", "--all", "--quiet")).stdout.split("\n").filter(Boolean);
      if (all.length) await docker("rm", "--force", "--volumes", ...all);
      await stop();
      await rm(data, { recursive: true, force: true });
      await rm(run, { recursive: true, force: true });
      await execa("ip", ["link", "delete", bridge], { reject: false });
    },
  };
}
