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
