// A real computerd in a real container, for the library's integration tests: the base image,
// made by the provider's own create request (hardened as every Docker computer is: non-root, no
// capability, no network), computerd init as PID 1, reached through the provider's own bridge
// (an exec of `computerd stdio` attached over the Engine API).
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import type { ComputerClient } from "../../src/daemon/client.js";
import { DockerEngine } from "../../src/docker/api.js";
import { openConnection } from "../../src/docker/connect.js";
import { create, start } from "../../src/docker/containers.js";
import { createRequest } from "../../src/docker/create-request.js";
import { planOf } from "../../src/docker/plan.js";
import { toolchain } from "./toolchain.js";

const run = promisify(execFile);
export { ROOT } from "./toolchain.js";

export async function docker(args: string[], options: { timeout?: number } = {}): Promise<string> {
  const { stdout } = await run("docker", args, { timeout: options.timeout ?? 60_000, maxBuffer: 64 << 20 });
  return stdout;
}

export interface TestComputer {
  name: string;
  /** A new connection: its own `computerd stdio` bridge, hello said. */
  connect(): Promise<ComputerClient>;
  /** Closes every connection and removes the container by its exact name. */
  remove(): Promise<void>;
}

/** Starts a computer named agentrun-lib-<what>-<random>; the caller removes it, pass or fail. */
export async function startComputer(what: string, options: { workMb?: number } = {}): Promise<TestComputer> {
  const { baseImage, daemon } = toolchain();
  const arch = process.arch === "arm64" ? "arm64" : "amd64";
  const name = `agentrun-lib-${what}-${randomBytes(4).toString("hex")}`;
  const deadline = new Date(Date.now() + 30 * 60_000).toISOString();
  const clients: ComputerClient[] = [];
  const engine = new DockerEngine();
  const remove = async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await docker(["rm", "--force", "--volumes", name]).catch(() => {});
    await engine.close();
  };
  // /work holds half the memory, so the memory is twice the /work asked for.
  const spec = { image: baseImage, lifetimeMs: 30 * 60_000, network: "none" as const, memoryMb: 2 * (options.workMb ?? 512) };
  try {
    const made = await create(engine, createRequest(planOf({ spec }, { name, deadline, daemon: daemon[arch], userDefault: { uid: 1000, gid: 1000 } })));
    if (!made.ok || !made.value) throw new Error(`creating ${name}: ${made.message}`);
    const started = await start(engine, made.value.Id);
    if (!started.ok) throw new Error(`starting ${name}: ${started.message}`);
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    name,
    async connect() {
      const connected = await openConnection(engine, { id: name, name }, undefined);
      if (!connected.ok) throw new Error(`connecting to ${name}: ${connected.error.message}`);
      clients.push(connected.value.client);
      return connected.value.client;
    },
    remove,
  };
}

/** Runs a shell line in the computer through exec.run and gives its stdout; a nonzero exit throws. */
export async function sh(client: ComputerClient, script: string, timeoutMs = 120_000): Promise<string> {
  const ran = await client.call("exec.run", { argv: ["sh", "-c", script], timeoutMs });
  const stdout = Buffer.from(ran.stdout, "base64").toString();
  if (ran.exitCode !== 0) throw new Error(`sh -c ${JSON.stringify(script)} exited ${ran.exitCode}: ${Buffer.from(ran.stderr, "base64").toString()}`);
  return stdout;
}
