// What the in-computer resources' Docker tests share: one real Docker computer per file,
// removed by its exact name; a plugin context over its provider that keeps what steps say; a
// shell inside it (docker exec, as its user); and a cut of its daemon connections mid-call.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import type { Context } from "../../provider/resource.js";
import type { ComputerClient } from "../../src/daemon/client.js";
import type { ComputerSpec } from "../../src/contract/provider.js";
import { ok } from "../../src/daemon/result.js";
import { DockerEngine } from "../../src/docker/api.js";
import type { DockerProvider } from "../../src/docker/provider.js";
import { engineViaSsh, provider, spec, testLabel } from "./docker-helpers.js";

export const docker = provider();

/**
 * The same engine reached as another host's, so its connections take the bridge (computerd stdio
 * in an exec), which cutBridges cuts from inside: the chaos cases' provider. On the engine here a
 * connection is init's own socket, which nothing inside the computer can cut but init's end.
 * close() ends its ssh login and removes its folder.
 */
export function bridgedProvider(): { docker: DockerProvider; close(): Promise<void> } {
  const dir = mkdtempSync(path.join(tmpdir(), "agentrun-inside-ssh-"));
  const bridged = provider({ engine: new DockerEngine(engineViaSsh(dir)) });
  return {
    docker: bridged,
    close: async () => {
      await bridged.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh computer with this test's label; remove() takes it away by its exact name. */
export async function makeComputer(extra: Partial<ComputerSpec> = {}): Promise<{ name: string; remove(): Promise<void> }> {
  const made = await docker.create(spec({ labels: testLabel(), memoryMb: 512, ...extra }));
  if (!made.ok) throw new Error(made.error.message);
  const name = made.value.name;
  return { name, remove: async () => void (await execa("docker", ["rm", "--force", "--volumes", name], { reject: false })) };
}

export function stepContext(
  said: string[] = [],
  urn = `urn:pulumi:test::inside::agentrun:index:Step::${randomBytes(6).toString("hex")}`,
  vendor: DockerProvider = docker,
): Context {
  return { settings: {}, vendor: async () => ok(vendor), signal: new AbortController().signal, say: (line) => said.push(line), urn };
}

/** A bash line run inside the computer as its user; its stdout, trimmed. */
export async function inside(name: string, script: string): Promise<{ exitCode: number; stdout: string }> {
  const r = await execa("docker", ["exec", name, "bash", "-c", script], { reject: false, timeout: 120_000 });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout).trim() };
}

/** Kills every `computerd stdio` bridge in the computer (SIGKILL): the daemon sees its connections cut. */
export async function cutBridges(name: string): Promise<void> {
  await inside(
    name,
    `for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^/opt/agentrun/computerd stdio' && kill -9 \${p#/proc/}; done; true`,
  );
}

/** A client that, before the nth call of a method, cuts the computer's bridges, so that call meets a broken connection. */
export function cuttingClient(client: ComputerClient, name: string, method: string, nth: number): ComputerClient & { cut: boolean } {
  let seen = 0;
  const wrapped = {
    cut: false,
    call: async (m: string, params: unknown, options?: unknown) => {
      if (m === method && ++seen === nth) {
        await cutBridges(name);
        wrapped.cut = true;
      }
      return (client.call as (m: string, p: unknown, o?: unknown) => Promise<unknown>)(m, params, options);
    },
    request: client.request.bind(client),
    close: client.close.bind(client),
  };
  return wrapped as unknown as ComputerClient & { cut: boolean };
}

export const randomText = (bytes: number) => randomBytes(bytes).toString("base64");
