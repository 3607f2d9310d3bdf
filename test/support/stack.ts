// A throwaway Pulumi stack for end-to-end tests: a YAML program in a temporary folder that loads
// the plugin from this work tree, a local file backend beside it, the CLI the set-up built.
// Every step is the real engine; the caller destroys and removes it with `dispose()`.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { LocalWorkspace, PulumiCommand, type OutputMap, type Stack } from "@pulumi/pulumi/automation/index.js";
import { execa } from "execa";
import { stringify } from "yaml";
import { isSecret } from "../../provider/secrets.js";
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

/** The CLI the set-up built, asked its version once in a test file rather than once a stack. */
let command: Promise<PulumiCommand> | undefined;
export const pulumiCommand = () => (command ??= PulumiCommand.get({ root: dirname(toolchain().pulumiBin), skipVersionCheck: false }));

/** A value as `stack export --show-secrets` writes it (a secret's value as JSON in `plaintext`), with each secret in it in clear. */
function inClear(v: unknown): unknown {
  if (isSecret(v)) return inClear(JSON.parse(String((v as Record<string, unknown>).plaintext)));
  if (Array.isArray(v)) return v.map(inClear);
  if (typeof v === "object" && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, inClear(x)]));
  return v;
}

/**
 * A stack's outputs from one CLI run, each marked secret as the automation API marks it (when it
 * is wholly secret). The API runs the CLI twice for them (masked, then in clear) after every up,
 * and a run of this CLI costs 0.3-0.6 s of CPU (its start and the passphrase's key derivation):
 * a fifth of the Pulumi tests' CLI runs were these.
 */
async function outputsOf(run: (...args: string[]) => Promise<{ exitCode: number; stdout: string; stderr: string }>): Promise<OutputMap> {
  const exported = await run("stack", "export", "--show-secrets");
  if (exported.exitCode !== 0) throw new Error(`pulumi stack export exited ${exported.exitCode}: ${exported.stderr}`);
  const deployment = JSON.parse(exported.stdout) as { deployment?: { resources?: Array<{ type: string; outputs?: Record<string, unknown> }> } };
  const root = deployment.deployment?.resources?.find((r) => r.type === "pulumi:pulumi:Stack");
  return Object.fromEntries(Object.entries(root?.outputs ?? {}).map(([k, v]) => [k, { value: inClear(v), secret: isSecret(v) }]));
}

export async function testStack(
  name: string,
  resources: Record<string, unknown>,
  outputs: Record<string, unknown> = {},
  options: { env?: Record<string, string> } = {},
): Promise<TestStack> {
  const tools = toolchain();
  const dir = await mkdtemp(join(tmpdir(), `agentrun-e2e-${name}-`));
  const env = { ...pulumiEnv(`${dir}/state`, join(dir, "home")), ...options.env };
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
  const stack = await LocalWorkspace.createOrSelectStack({ stackName: "test", workDir: dir }, { pulumiCommand: await pulumiCommand(), envVars: env });
  const cli = async (...args: string[]) => {
    const r = await execa(`${tools.pulumiBin}/pulumi`, [...args, "--stack", "test", "--non-interactive"], {
      cwd: dir,
      env,
      reject: false,
      all: false,
    });
    return { exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
  };
  stack.workspace.stackOutputs = () => outputsOf(cli);
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
