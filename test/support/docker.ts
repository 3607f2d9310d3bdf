// Small reads of the Docker engine for tests: by exact name, never by guess.
import { execa } from "execa";

export async function docker(...args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }> {
  const r = await execa("docker", args, { reject: false, timeout: 60_000 });
  return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout).trim(), stderr: String(r.stderr).trim() };
}

/** Removes each container by its exact name; one already gone is fine. */
export async function removeContainers(names: Iterable<string>): Promise<void> {
  const all = [...new Set(names)];
  if (all.length) await docker("rm", "--force", "--volumes", ...all);
}

export async function isRunning(name: string): Promise<boolean> {
  const r = await docker("inspect", "--format", "{{.State.Running}}", name);
  return r.exitCode === 0 && r.stdout === "true";
}

export async function exists(name: string): Promise<boolean> {
  return (await docker("inspect", "--format", "{{.Id}}", name)).exitCode === 0;
}

/** The containers and volumes labelled as one computer's or proxy's egress parts, each list as docker prints it. */
export async function egressParts(key: string): Promise<{ containers: string; volumes: string }> {
  const filter = `label=agentrun.computer.egress=${key}`;
  const [containers, volumes] = await Promise.all([
    docker("ps", "--all", "--format", "{{.Names}}", "--filter", filter),
    docker("volume", "ls", "--format", "{{.Name}}", "--filter", filter),
  ]);
  return { containers: containers.stdout, volumes: volumes.stdout };
}

/** Removes a computer's or proxy's egress parts by their exact name (<name>-egress, container and volume); gone is fine. */
export async function removeEgress(name: string): Promise<void> {
  await docker("rm", "--force", `${name}-egress`);
  await docker("volume", "rm", "--force", `${name}-egress`);
}
