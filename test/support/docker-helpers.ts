// What the Docker tests (test/docker) share: the toolchain's base image and daemon, a provider, and
// a tracker that removes every computer a test made by its exact name, pass or fail.
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, afterEach } from "vitest";
import { DockerProvider, type DockerProviderOptions } from "../../src/docker/provider.js";
import { type EngineAddress, engineAt } from "../../src/docker/engine.js";
import type { ComputerSpec } from "../../src/contract/provider.js";
import { toolchain as readToolchain } from "./toolchain.js";

export const toolchain = readToolchain();
export const IMAGE = toolchain.baseImage;
export const DAEMON = toolchain.daemon.amd64;

export function provider(options: Partial<DockerProviderOptions> = {}): DockerProvider {
  return new DockerProvider({ daemonPath: DAEMON, ...options });
}

/** A label only this test's computers carry, so a check for "nothing left" sees no one else's. */
export function testLabel(): Record<string, string> {
  return { "agentrun.test": randomBytes(6).toString("hex") };
}

export function spec(extra: Partial<ComputerSpec> = {}): ComputerSpec {
  return { image: IMAGE, lifetimeMs: 600_000, network: "none", ...extra };
}

/**
 * Names of containers to remove by exact name, pass or fail: after each test, or (`"all"`, for a
 * computer the tests of one describe share) after the last test of the describe it is called in.
 */
export function cleanup(after: "each" | "all" = "each"): { track(name: string): string } {
  const names = new Set<string>();
  (after === "each" ? afterEach : afterAll)(() => {
    for (const name of names) execFileSync("docker", ["rm", "--force", "--volumes", name], { stdio: "ignore" });
    names.clear();
  });
  return { track: (name) => (names.add(name), name) };
}

export function docker(...args: string[]): string {
  return execFileSync("docker", args, { encoding: "utf8" }).trim();
}

/** Containers with this test's label, any state. */
export function withLabel(labels: Record<string, string>): string[] {
  const filters = Object.entries(labels).flatMap(([k, v]) => ["--filter", `label=${k}=${v}`]);
  return docker("ps", "--all", "--format", "{{.Names}}", ...filters)
    .split("\n")
    .filter(Boolean);
}

/**
 * The shared engine reached as another host's: an ssh engine whose client (written into dir) is a
 * stand-in for ssh's hop, running what follows the destination (docker system dial-stdio) here.
 * The provider takes it as remote: no way to init's socket from this machine, the daemon put in
 * by archive.
 */
export function engineViaSsh(dir: string): EngineAddress {
  const ssh = path.join(dir, "ssh");
  writeFileSync(ssh, '#!/bin/sh\nwhile [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done\nshift 2\n[ $# -eq 0 ] && exit 0\nexec "$@"\n');
  chmodSync(ssh, 0o755);
  const at = engineAt("ssh://engine.test", "the test's engine", { ssh: [ssh] });
  if (!at.ok) throw new Error(at.error.message);
  return at.value;
}

/**
 * As the computer's user, who owns /run/agentrun: init's socket moved aside and a link left in its
 * place to a socket of this machine's, in dir. reached() counts connections that socket took;
 * undo() puts init's socket back and closes it.
 */
export async function plantHostSocketLink(container: string, dir: string): Promise<{ reached: () => number; undo: () => Promise<void> }> {
  const host = path.join(dir, `host-${randomBytes(3).toString("hex")}.sock`);
  let reached = 0;
  const server = net.createServer((c) => {
    reached += 1;
    c.destroy();
  });
  await new Promise<void>((resolve) => server.listen(host, resolve));
  docker("exec", container, "sh", "-c", `mv /run/agentrun/computerd.sock /run/agentrun/moved.sock && ln -s ${host} /run/agentrun/computerd.sock`);
  return {
    reached: () => reached,
    undo: async () => {
      docker("exec", container, "sh", "-c", "rm /run/agentrun/computerd.sock && mv /run/agentrun/moved.sock /run/agentrun/computerd.sock");
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
