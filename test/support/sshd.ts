// An sshd of the test's own on 127.0.0.1, in front of a Docker engine: Debian's openssh-server
// run as `sshd -D` from a config, host key, client key and known_hosts made in the test's folder.
// A login runs its command with DOCKER_HOST set to the engine, so `docker system dial-stdio`
// reaches it, as on a real engine's host. Stopped by its own pid, never by name.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { execa } from "execa";
import { freePort } from "./second-engine.js";

export const SSHD = "/usr/sbin/sshd";

export interface TestSshd {
  /** ssh://root@127.0.0.1:<port> */
  address: string;
  /** The ssh client's argv with the test's config: its key and its known_hosts. */
  ssh: string[];
  /** The argv of a client whose known_hosts does not hold the host's key. */
  unknownHost: string[];
  /** The argv of a client whose key the host does not take. */
  refusedKey: string[];
  /** Logins the host has taken so far (sshd's "Accepted publickey" lines). */
  logins(): number;
  /** The connections open to it now: sshd's children, one per connection. */
  connections(): Promise<number>;
  stop(): Promise<void>;
}

const keygen = (file: string) => execa("ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "agentrun-test", "-f", file]);

/** A client config in dir using key and known_hosts. */
async function clientConfig(dir: string, name: string, key: string, knownHosts: string): Promise<string[]> {
  const file = path.join(dir, `${name}.config`);
  await writeFile(
    file,
    [
      "Host *",
      `  IdentityFile ${key}`,
      "  IdentitiesOnly yes",
      `  UserKnownHostsFile ${knownHosts}`,
      "  GlobalKnownHostsFile /dev/null",
      "  StrictHostKeyChecking yes",
      "  PasswordAuthentication no",
      "  KbdInteractiveAuthentication no",
      "  LogLevel ERROR",
      "",
    ].join("\n"),
    { mode: 0o600 },
  );
  return ["ssh", "-F", file];
}

/** sshd on 127.0.0.1 whose logins reach the engine at dockerHost (unix:///…). */
export async function startSshd(dir: string, dockerHost: string): Promise<TestSshd> {
  if (!existsSync(SSHD)) throw new Error(`no ${SSHD}: install Debian's openssh-server (the set-up's --tests does)`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await mkdir("/run/sshd", { recursive: true, mode: 0o755 }); // sshd's privilege separation directory
  const hostKey = path.join(dir, "host_ed25519");
  const userKey = path.join(dir, "user_ed25519");
  const otherKey = path.join(dir, "other_ed25519");
  await Promise.all([keygen(hostKey), keygen(userKey), keygen(otherKey)]);
  const port = await freePort();
  const authorized = path.join(dir, "authorized_keys");
  await writeFile(authorized, await readFile(`${userKey}.pub`), { mode: 0o600 });
  const knownHosts = path.join(dir, "known_hosts");
  const hostPub = (await readFile(`${hostKey}.pub`, "utf8")).trim().split(" ").slice(0, 2).join(" ");
  await writeFile(knownHosts, `[127.0.0.1]:${port} ${hostPub}\n`);
  const emptyKnown = path.join(dir, "known_hosts.empty");
  await writeFile(emptyKnown, "");
  const config = path.join(dir, "sshd_config");
  await writeFile(
    config,
    [
      `Port ${port}`,
      "ListenAddress 127.0.0.1",
      `HostKey ${hostKey}`,
      `PidFile ${path.join(dir, "sshd.pid")}`,
      `AuthorizedKeysFile ${authorized}`,
      "PermitRootLogin prohibit-password",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "UsePAM no",
      "StrictModes no",
      `SetEnv DOCKER_HOST=${dockerHost}`,
      "",
    ].join("\n"),
  );
  const child: ChildProcess = spawn(SSHD, ["-D", "-e", "-f", config], { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  let logins = 0;
  child.stderr?.on("data", (c: Buffer) => {
    const text = c.toString();
    logins += text.match(/Accepted publickey/g)?.length ?? 0;
    log = (log + text).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const ssh = await clientConfig(dir, "client", userKey, knownHosts);
  // Ready when a login runs a command.
  const end = Date.now() + 30_000;
  for (;;) {
    const r = await execa(ssh[0]!, [...ssh.slice(1), "-p", String(port), "root@127.0.0.1", "true"], { reject: false, timeout: 10_000 });
    if (r.exitCode === 0) break;
    if (child.exitCode !== null || Date.now() > end) {
      child.kill("SIGTERM");
      throw new Error(`the test's sshd did not take a login: ${r.stderr}\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    address: `ssh://root@127.0.0.1:${port}`,
    ssh,
    unknownHost: await clientConfig(dir, "unknown-host", userKey, emptyKnown),
    refusedKey: await clientConfig(dir, "refused-key", otherKey, knownHosts),
    logins: () => logins,
    connections: async () => (await execa("pgrep", ["-P", String(child.pid)], { reject: false })).stdout.split("\n").filter(Boolean).length,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}
