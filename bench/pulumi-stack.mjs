// A bench's own Pulumi stack: a temporary folder holding the program and its file backend, the
// Pulumi CLI built by the set-up, and the plugin from provider/bin. The benches that time the
// engine (pulumi-fleet, fleet-100, pulumi-refresh, kube-fleet, exec-load) share it so they time the same set-up.
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { onStop } from "./stop.mjs";

const run = promisify(execFile);
export const root = new URL("../", import.meta.url).pathname;
export const tools = JSON.parse(await readFile(join(root, "dist/toolchain.json"), "utf8"));

/**
 * A stack named bench in a new folder under the system's temporary one; `pulumi(...)` runs the CLI
 * in it. remove() removes the folder, once: on a stop (SIGINT, SIGTERM) too, after the bench's own
 * cleanup (registered later: its destroy needs the folder), which calls it last.
 */
export async function benchStack(prefix, { skipPreview = false, maxBuffer = 64 << 20, env: extra = {} } = {}) {
  const making = mkdtemp(join(tmpdir(), prefix));
  const remove = onStop(async () => {
    const made = await making.catch(() => undefined);
    if (made) await rm(made, { recursive: true, force: true });
  });
  const dir = await making;
  const env = {
    ...process.env,
    PATH: `${tools.pulumiBin}:${process.env.PATH}`,
    PULUMI_BACKEND_URL: `file://${dir}/state`,
    PULUMI_CONFIG_PASSPHRASE: "bench",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
    ...extra,
  };
  const flags = ["--stack", "bench", "--non-interactive", ...(skipPreview ? ["--skip-preview"] : [])];
  const pulumi = (...args) => run(`${tools.pulumiBin}/pulumi`, [...args, ...flags], { cwd: dir, env, maxBuffer });
  /** The program: a YAML project of these resources, with the plugin from this work tree. */
  const program = async (name, resources) => {
    const { stringify } = await import("yaml");
    const plugins = { providers: [{ name: "agentrun", path: join(root, "provider/bin") }] };
    await writeFile(join(dir, "Pulumi.yaml"), stringify({ name, runtime: "yaml", plugins, resources }));
  };
  /** The backend's folder and the stack, once the program (Pulumi.yaml) is written. */
  const init = async () => {
    await mkdir(join(dir, "state"), { recursive: true });
    await run(`${tools.pulumiBin}/pulumi`, ["stack", "init", "bench", "--non-interactive"], { cwd: dir, env });
  };
  return { dir, env, pulumi, program, init, remove };
}

/**
 * A YAML program's resources: n small computers c0..c(n-1) on the image, labelled with the bench's
 * tag; the first `replaced` carry the generation in a label, so a new generation replaces them.
 */
export function fleetResources(n, { image, tag, generation = 1, replaced = 0 }) {
  return Object.fromEntries(
    Array.from({ length: n }, (_, i) => [
      `c${i}`,
      {
        type: "agentrun:index:Computer",
        properties: {
          image,
          lifetimeMs: 3_600_000,
          network: "none",
          cpus: 0.25,
          memoryMb: 128,
          pids: 64,
          labels: { "agentrun.bench": tag, generation: i < replaced ? String(generation) : "1" },
        },
      },
    ]),
  );
}

/** The containers and volumes that carry the label: what a bench's stack left on Docker. */
export async function leftOnDocker(label) {
  const [c, v] = await Promise.all([
    run("docker", ["ps", "--all", "--quiet", "--filter", `label=${label}`]),
    run("docker", ["volume", "ls", "--quiet", "--filter", `label=${label}`]),
  ]);
  return { containers: c.stdout.split("\n").filter(Boolean), volumes: v.stdout.split("\n").filter(Boolean) };
}

/**
 * Every container and volume that carries the label removed: what a stack stopped half-way made
 * and did not record (a create under way when its plugin was ended), after its destroy.
 */
export async function removeLeft(label) {
  const left = await leftOnDocker(label);
  if (left.containers.length) await run("docker", ["rm", "-f", "-v", ...left.containers]).catch(() => undefined);
  if (left.volumes.length) await run("docker", ["volume", "rm", "-f", ...left.volumes]).catch(() => undefined);
  return left;
}
