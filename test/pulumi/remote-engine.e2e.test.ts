// A YAML stack on a Docker engine of another host, through the real Pulumi engine: the test's own
// second dockerd (never the shared engine) over TCP with TLS verified both ways, and over ssh
// through the test's own sshd, each named by agentrun:docker.engine. up makes the computers,
// preview --refresh finds them as declared, destroy leaves nothing on that engine.
import { mkdtempSync, realpathSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type RemoteEngine, startRemoteEngine } from "../support/remote-engine.js";
import type { SecondEngine } from "../support/second-engine.js";
import type { TestSshd } from "../support/sshd.js";
import { testStack } from "../support/stack.js";

const dir = realpathSync(mkdtempSync(path.join(tmpdir(), "agentrun-remote-stack-")));
let engine: SecondEngine;
let sshd: TestSshd;
let client: string;
/** The ssh client with the test's config, as one program: the engine's ssh setting is its argv. */
let sshClient: string;

let remote: RemoteEngine | undefined;
beforeAll(async () => {
  remote = await startRemoteEngine(dir);
  ({ engine, sshd, client } = remote);
  sshClient = path.join(dir, "ssh-client");
  await writeFile(sshClient, `#!/bin/sh\nexec ${sshd.ssh.join(" ")} "$@"\n`, { mode: 0o755 });
}, 300_000);

afterAll(() => remote?.dispose(), 120_000);

describe.each([
  ["TCP with TLS", (): Record<string, string> => ({ host: engine.tcp!, certPath: client })],
  ["ssh", (): Record<string, string> => ({ host: sshd.address, "ssh[0]": sshClient })],
])("a YAML stack on a remote engine over %s", (name, engineConfig) => {
  test("up, preview --refresh and destroy", async () => {
    const run = `remote-${name.split(" ")[0]!.toLowerCase()}-${process.pid}`;
    const computer = { image: engine.image, lifetimeMs: 600_000, network: "none", cpus: 0.25, memoryMb: 128, pids: 64, labels: { "agentrun.test": run } };
    const s = await testStack(`remote-${name.split(" ")[0]!.toLowerCase()}`, {
      a: { type: "agentrun:index:Computer", properties: structuredClone(computer) },
      b: { type: "agentrun:index:Computer", properties: structuredClone(computer) },
    });
    try {
      for (const [key, value] of Object.entries(engineConfig())) {
        const set = await s.cli("config", "set", "--path", `agentrun:docker.engine.${key}`, value);
        expect(set.exitCode, set.stderr).toBe(0);
      }
      const up = await s.cli("up", "--yes");
      expect(up.exitCode, up.stdout.slice(-3000) + up.stderr.slice(-2000)).toBe(0);
      // The plugin closed its engine when the engine ended it: an ssh engine's shared login, which
      // would otherwise stay ControlPersist's 60 s, is gone with it.
      if (name === "ssh") {
        for (const end = Date.now() + 5_000; (await sshd.connections()) > 0 && Date.now() < end;) await new Promise((r) => setTimeout(r, 100));
        expect(await sshd.connections()).toBe(0);
      }
      const made = (await engine.docker("ps", "--quiet", "--filter", `label=agentrun.test=${run}`)).stdout.split("\n").filter(Boolean);
      expect(made).toHaveLength(2);
      const preview = await s.cli("preview", "--refresh", "--expect-no-changes");
      expect(preview.exitCode, preview.stdout.slice(-3000) + preview.stderr.slice(-2000)).toBe(0);
      const destroyed = await s.cli("destroy", "--yes");
      expect(destroyed.exitCode, destroyed.stdout.slice(-3000)).toBe(0);
      expect((await engine.docker("ps", "--all", "--quiet", "--filter", `label=agentrun.test=${run}`)).stdout).toBe("");
    } finally {
      await s.dispose();
    }
  }, 600_000);
});
