// A real computerd in a real container, for the library's integration tests and benchmarks:
// the base image, hardened as a Docker computer is (non-root, no capability, no network),
// computerd init as PID 1, reached through `docker exec -i <c> computerd stdio`.
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { DaemonClient } from "../../src/client.js";
import { toolchain } from "../support/toolchain.js";

const run = promisify(execFile);
export { ROOT } from "../support/toolchain.js";
export const DAEMON_IN_COMPUTER = "/opt/agentrun/computerd";

export async function docker(args: string[], options: { timeout?: number } = {}): Promise<string> {
  const { stdout } = await run("docker", args, { timeout: options.timeout ?? 60_000, maxBuffer: 64 << 20 });
  return stdout;
}

export interface TestComputer {
  name: string;
  /** A new connection: its own `computerd stdio` bridge. */
  connect(): DaemonClient;
  /** Closes every connection and removes the container by its exact name. */
  remove(): Promise<void>;
}

/** Starts a computer named agentrun-lib-<what>-<random>; the caller removes it, pass or fail. */
export async function startComputer(what: string, options: { workMb?: number } = {}): Promise<TestComputer> {
  const { baseImage, daemon } = toolchain();
  const arch = process.arch === "arm64" ? "arm64" : "amd64";
  const name = `agentrun-lib-${what}-${randomBytes(4).toString("hex")}`;
  const deadline = new Date(Date.now() + 30 * 60_000).toISOString();
  const clients: DaemonClient[] = [];
  const remove = async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await docker(["rm", "--force", "--volumes", name]).catch(() => {});
  };
  try {
    await docker([
      "run", "--detach", "--name", name,
      "--user", "1000:1000", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
      "--network", "none", "--pids-limit", "1024",
      "--tmpfs", "/run/agentrun:uid=1000,gid=1000,mode=0700,noexec,nosuid,nodev,size=1m",
      "--tmpfs", `/work:uid=1000,gid=1000,mode=0700,exec,nosuid,nodev,size=${options.workMb ?? 512}m`,
      "--env", "HOME=/work", "--workdir", "/work",
      "--mount", `type=bind,src=${daemon[arch]},dst=${DAEMON_IN_COMPUTER},readonly`,
      "--entrypoint", DAEMON_IN_COMPUTER,
      baseImage, "init", "--deadline", deadline,
    ]);
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    name,
    connect() {
      const bridge = spawn("docker", ["exec", "-i", name, DAEMON_IN_COMPUTER, "stdio"], { stdio: ["pipe", "pipe", "inherit"] });
      const client = new DaemonClient({ readable: bridge.stdout, writable: bridge.stdin });
      clients.push(client);
      return client;
    },
    remove,
  };
}

/** Runs a shell line in the computer through exec.run and gives its stdout; a nonzero exit throws. */
export async function sh(client: DaemonClient, script: string, timeoutMs = 120_000): Promise<string> {
  const ran = await client.call("exec.run", { argv: ["sh", "-c", script], timeoutMs });
  const stdout = Buffer.from(ran.stdout, "base64").toString();
  if (ran.exitCode !== 0) throw new Error(`sh -c ${JSON.stringify(script)} exited ${ran.exitCode}: ${Buffer.from(ran.stderr, "base64").toString()}`);
  return stdout;
}
