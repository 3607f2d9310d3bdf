// A container registry of the test's own on 127.0.0.1: Debian's docker-registry (the set-up's
// --tests installs it) serving a storage folder in the test's dir, on a free port, no auth. Docker
// takes a registry on 127.0.0.0/8 over plain HTTP by default. Stopped by its own pid, never by name.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { freePort } from "./second-engine.js";

export const REGISTRY = "/usr/bin/docker-registry";

export interface TestRegistry {
  /** 127.0.0.1:<port>, the registry part of an image's name. */
  host: string;
  /**
   * image (on the engine at dockerHost, default the shared one) pushed as <host>/<repository>:<tag>,
   * that tag removed again on the engine; its name pinned by the digest the registry holds it by.
   */
  push(image: string, repository: string, tag: string, dockerHost?: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startRegistry(dir: string): Promise<TestRegistry> {
  if (!existsSync(REGISTRY)) throw new Error(`no ${REGISTRY}: install Debian's docker-registry (the set-up's --tests does)`);
  await mkdir(path.join(dir, "storage"), { recursive: true });
  const port = await freePort();
  const host = `127.0.0.1:${port}`;
  const config = path.join(dir, "config.yml");
  await writeFile(
    config,
    [
      "version: 0.1",
      "log:",
      "  level: error",
      "storage:",
      "  filesystem:",
      `    rootdirectory: ${path.join(dir, "storage")}`,
      "http:",
      `  addr: ${host}`,
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(REGISTRY, ["serve", config], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  child.stderr?.on("data", (c: Buffer) => (log = (log + c.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await exited;
    }
  };
  const end = Date.now() + 30_000;
  for (;;) {
    const answered = await fetch(`http://${host}/v2/`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (answered) break;
    if (child.exitCode !== null || Date.now() > end) {
      await stop();
      throw new Error(`the test's registry did not answer on ${host}: ${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    host,
    push: async (image, repository, tag, dockerHost) => {
      const docker = (...args: string[]) => execa("docker", [...(dockerHost ? ["-H", dockerHost] : []), ...args], { timeout: 300_000 });
      const name = `${host}/${repository}:${tag}`;
      await docker("tag", image, name);
      let digest: string | undefined;
      try {
        const pushed = await docker("push", name);
        digest = /digest: (sha256:[a-f0-9]{64})/.exec(String(pushed.stdout))?.[1];
        if (!digest) throw new Error(`docker push ${name} said no digest: ${String(pushed.stdout).slice(-500)}`);
        return `${name}@${digest}`;
      } finally {
        // The tag, and with it the digest the push recorded: the engine must pull it to have it by that name.
        await docker("rmi", name);
      }
    },
    stop,
  };
}
