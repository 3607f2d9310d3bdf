// A run harness, as an agent platform's own Node service would write one: it brings up a run's
// computers through the Pulumi engine (@agentrun/computer/automation), runs a command on each
// through the library (attach, which checks drift, then the daemon's exec.run), and tears them
// all down, whatever happened in between.
import { homedir } from "node:os";
import * as pulumi from "@pulumi/pulumi";
import { orThrow, providerFromSettings, type ComputerProvider } from "@agentrun/computer";
import { computerStack, type Progress } from "@agentrun/computer/automation";
import { Computer, RunEpoch } from "@agentrun/computer/pulumi";

export interface HarnessOptions {
  /** The run's id: the stack's name and its computers' label. */
  run: string;
  /** The computers' provider, a registry id (default docker). */
  provider?: string;
  /** How many computers (default 5). */
  count?: number;
  /** The command run on each. */
  argv: string[];
  /** Encrypts the stack's secrets in state. */
  passphrase: string;
  /** Where state is kept (default ~/.agentrun/state). */
  state?: string;
  /** The computers' image (agentrun:docker.image); unset, the provider's own. */
  image?: string;
  /** The folder holding `pulumi`, and more environment for it. */
  pulumi?: string;
  env?: Record<string, string>;
  onProgress?: (progress: Progress) => void;
}

export interface Ran {
  computer: string;
  exitCode: number | null;
  stdout: string;
}

/** The run's computers at one provider: a claim on the run, and count computers carrying its labels. */
export function fleet(run: string, count: number, provider: string) {
  const claim = new RunEpoch("claim", { provider, run, epoch: 1 });
  const computers = Array.from(
    { length: count },
    (_, n) => new Computer(`worker-${n}`, { provider, lifetimeMs: 30 * 60_000, network: "none", labels: claim.labels }),
  );
  return { provider, computers: pulumi.all(computers.map((c) => pulumi.all([c.name, c.vendorId]).apply(([name, vendorId]) => ({ name, vendorId })))) };
}

/** Runs argv on one computer, found by its vendor id and checked for drift before anything runs. */
async function runOn(provider: ComputerProvider, computer: { name: string; vendorId: string }, argv: string[]): Promise<Ran> {
  const ref = orThrow(await provider.attach({ id: computer.vendorId }));
  const connection = orThrow(await provider.connect(ref));
  try {
    const ran = await connection.client.call("exec.run", { argv, timeoutMs: 60_000 });
    return { computer: computer.name, exitCode: ran.exitCode, stdout: Buffer.from(ran.stdout, "base64").toString() };
  } finally {
    await connection.close();
  }
}

/** Up, the command on every computer at once, and destroy (which also forgets the stack). */
export async function runHarness(options: HarnessOptions): Promise<Ran[]> {
  const stack = orThrow(
    await computerStack({
      stack: options.run,
      program: () => fleet(options.run, options.count ?? 5, options.provider ?? "docker"),
      passphrase: options.passphrase,
      ...(options.state ? { state: options.state } : {}),
      ...(options.image ? { settings: { docker: { image: options.image } } } : {}),
      ...(options.pulumi ? { pulumi: options.pulumi } : {}),
      ...(options.env ? { env: options.env } : {}),
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    }),
  );
  try {
    const { provider: id, computers } = orThrow(await stack.up()).outputs;
    // The library's provider, the host's environment counting as the vendor's own CLI's would.
    const provider = orThrow(await providerFromSettings(id, {}, { env: process.env, home: homedir() }));
    return await Promise.all(computers.map((c) => runOn(provider, c, options.argv)));
  } finally {
    orThrow(await stack.destroy({ remove: true }));
  }
}
