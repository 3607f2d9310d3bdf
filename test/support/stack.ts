// A throwaway Pulumi stack for end-to-end tests: a YAML program in a temporary folder that loads
// the plugin from this work tree, a local file backend beside it, the CLI the set-up built.
// Every step is the real engine; the caller destroys and removes it with `dispose()`.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { LocalWorkspace, PulumiCommand, type Stack } from "@pulumi/pulumi/automation/index.js";
import { execa } from "execa";
import { stringify } from "yaml";
import { removeContainers } from "./docker.js";
import { ROOT, toolchain } from "./toolchain.js";

export type TestStack = {
  dir: string;
  stack: Stack;
  env: Record<string, string>;
  /** Rewrites the program's resources and outputs (Pulumi.yaml) in place. */
  program(resources: Record<string, unknown>, outputs?: Record<string, unknown>): Promise<void>;
  /** Containers a step made, removed by exact name after the stack's destroy, pass or fail. */
  made: Set<string>;
  /** Runs the CLI in the stack's folder; resolves with its exit code and output, never throws. */
  cli(...args: string[]): Promise<{ exitCode: number; stdout: string; stderr: string }>;
  dispose(): Promise<void>;
};

/** A Pulumi home of the test's own, where the engine never fetches a plugin (ours is on PATH). */
export function homeEnv(home: string): Record<string, string> {
  return { PULUMI_HOME: home, PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true" };
}

/** The CLI the set-up built, with a local backend and a home of its own, never prompting. */
export function pulumiEnv(backend: string, home: string): Record<string, string> {
  return {
    PATH: `${toolchain().pulumiBin}:${process.env.PATH}`,
    PULUMI_BACKEND_URL: `file://${backend}`,
    PULUMI_CONFIG_PASSPHRASE: "agentrun-test",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    ...homeEnv(home),
  };
}

export async function testStack(name: string, resources: Record<string, unknown>, outputs: Record<string, unknown> = {}): Promise<TestStack> {
  const tools = toolchain();
  const dir = await mkdtemp(join(tmpdir(), `agentrun-e2e-${name}-`));
  const env = pulumiEnv(`${dir}/state`, join(dir, "home"));
  await execa("mkdir", ["-p", `${dir}/state`, join(dir, "home")]);
  const program = async (res: Record<string, unknown>, outs: Record<string, unknown> = {}) => {
    const doc = {
      name: `agentrun-${name}`,
      runtime: "yaml",
      plugins: { providers: [{ name: "agentrun", path: `${ROOT}/provider/bin` }] },
      resources: res,
      outputs: outs,
    };
    await writeFile(join(dir, "Pulumi.yaml"), stringify(doc));
  };
  await program(resources, outputs);
  const pulumiCommand = await PulumiCommand.get({ root: dirname(tools.pulumiBin), skipVersionCheck: false });
  const stack = await LocalWorkspace.createOrSelectStack({ stackName: "test", workDir: dir }, { pulumiCommand, envVars: env });
  const cli = async (...args: string[]) => {
    const r = await execa(`${tools.pulumiBin}/pulumi`, [...args, "--stack", "test", "--non-interactive"], {
      cwd: dir,
      env,
      reject: false,
      all: false,
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
  const made = new Set<string>();
  const dispose = async () => {
    try {
      await stack.destroy({ color: "never" });
    } finally {
      await removeContainers(made);
      await rm(dir, { recursive: true, force: true });
    }
  };
  return { dir, stack, env, made, program, cli, dispose };
}
