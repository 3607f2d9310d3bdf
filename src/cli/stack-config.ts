// A stack's `agentrun:` config and its computers as its state declares them (each Computer's
// inputs, with the ComputerCommands run and the ComputerApps installed in it, and the Computer,
// Fleet or WarmPool that made it), read
// through the Pulumi CLI as `npm run up` keeps it: the local backend in the project's .pulumi/
// folder, and the local passphrase unless the caller set one.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { execa } from "execa";
import { pulumiBinary } from "../fleet/pulumi-cli.js";
import { bounded } from "./bounds.js";
import { CliError, EXIT } from "./errors.js";

/** The passphrase scripts/up.sh gives local state when the caller sets none. */
const LOCAL_PASSPHRASE = "agentrun-local";
/** A config read is one local file read by the CLI; far less than this. */
const CONFIG_BOUND_MS = 60_000;

export interface StackSource {
  stack: string;
  /** The Pulumi project's folder (its Pulumi.yaml). */
  cwd: string;
  /** The state backend: default the project's own .pulumi/ folder, as scripts/up.sh sets it. */
  backend?: string;
}

/** The Pulumi CLI run on the stack's project with its backend; its stdout, or a usage refusal naming the stack. */
async function pulumi(source: StackSource, args: string[], signal: AbortSignal): Promise<string> {
  const backend = source.backend ?? `file://${path.resolve(source.cwd, ".pulumi")}`;
  // A passphrase file only stands in when PULUMI_CONFIG_PASSPHRASE is unset: the CLI prefers that one.
  const dir = mkdtempSync(path.join(tmpdir(), "agentrun-cli-"));
  const passphraseFile = path.join(dir, "passphrase");
  writeFileSync(passphraseFile, LOCAL_PASSPHRASE, { mode: 0o600 });
  try {
    const run = await execa(pulumiBinary(), [...args, "--stack", source.stack], {
      cwd: source.cwd,
      env: {
        PULUMI_BACKEND_URL: backend,
        PULUMI_CONFIG_PASSPHRASE_FILE: passphraseFile,
        PULUMI_SKIP_UPDATE_CHECK: "true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION: "true",
      },
      cancelSignal: bounded(signal, CONFIG_BOUND_MS),
      reject: false,
    });
    if (run.failed) {
      const said = String(run.stderr || run.stdout || run.shortMessage)
        .trim()
        .split("\n")
        .slice(-3)
        .join(" ");
      throw new CliError(
        EXIT.usage,
        `the stack "${source.stack}" could not be read from ${backend} in ${source.cwd}: ${said}\n` +
          "(`npm run up` makes the project's stack; `pulumi stack ls` lists the stacks there)",
      );
    }
    return String(run.stdout);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every `agentrun:<key>` of the stack, objects as objects (`pulumi config set --path agentrun:docker.image x`). */
export async function agentrunConfig(source: StackSource, signal: AbortSignal): Promise<Record<string, unknown>> {
  const config = JSON.parse(await pulumi(source, ["config", "--json", "--show-secrets"], signal)) as Record<string, { value?: unknown; objectValue?: unknown }>;
  const ours: Record<string, unknown> = {};
  for (const [key, entry] of Object.entries(config)) {
    if (!key.startsWith("agentrun:")) continue;
    ours[key.slice("agentrun:".length)] = entry.objectValue ?? entry.value;
  }
  return ours;
}

/** The resource types whose state says what a computer is and what ran in it (schema/schema.json's tokens). */
export const COMPUTER_TYPE = "agentrun:index:Computer";
export const COMMAND_TYPE = "agentrun:index:ComputerCommand";
export const APP_TYPE = "agentrun:index:ComputerApp";
export const FLEET_TYPE = "agentrun:index:Fleet";
export const POOL_TYPE = "agentrun:index:WarmPool";
/** The key Pulumi's state marks a secret value with; its value stays encrypted here (no --show-secrets). */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";

/** A value of the state with every secret in it as the word "[secret]". */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (typeof value !== "object" || value === null) return value;
  if (SECRET_SIG in value) return "[secret]";
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutSecrets(v)]));
}

/** One computer as a stack's state holds it: its Computer's inputs, and what the stack ran and installed in it. */
export interface StackComputer {
  /** Its Computer's inputs as declared; absent when the stack only runs in it (a computer made elsewhere). */
  inputs?: Record<string, unknown>;
  /** Its ComputerCommands' last runs, each by its resource name: the outputs as the state holds them. */
  commands: Array<{ resource: string; outputs: Record<string, unknown> }>;
  /** Its ComputerApps, each by its resource name. */
  apps: Array<{ resource: string; outputs: Record<string, unknown> }>;
  /** The resource that made it, in words ("Computer linux", "Fleet workers", "WarmPool warm"); absent when the stack made none. */
  madeBy?: string;
}

/** A stack's computers by name, and its WarmPools' words by pool id (a claimed member carries the id as its agentrun.pool label). */
export interface StackState {
  computers: Map<string, StackComputer>;
  pools: Map<string, string>;
}

/** Each computer of a `pulumi stack export`, by its name: its Computer's inputs, commands and apps, every secret as "[secret]", and what made it. */
export function computersOfExport(exported: unknown): StackState {
  const resources = ((exported as { deployment?: { resources?: unknown[] } })?.deployment?.resources ?? []) as Array<{
    urn?: string;
    type?: string;
    parent?: string;
    inputs?: Record<string, unknown>;
    outputs?: Record<string, unknown>;
  }>;
  const out = new Map<string, StackComputer>();
  const pools = new Map<string, string>();
  const of = (name: string) => out.get(name) ?? (out.set(name, { commands: [], apps: [] }), out.get(name)!);
  const nameOf = (urn: string | undefined) =>
    String(urn ?? "")
      .split("::")
      .at(-1) ?? "";
  // A Fleet's Computers are its children: each is grouped as the Fleet's.
  const fleets = new Set(resources.filter((r) => r.type === FLEET_TYPE).map((r) => r.urn));
  for (const r of resources) {
    const outputs = withoutSecrets(r.outputs ?? {}) as Record<string, unknown>;
    const named = nameOf(r.urn);
    if (r.type === COMPUTER_TYPE && typeof outputs.name === "string") {
      const computer = of(outputs.name);
      computer.inputs = withoutSecrets(r.inputs ?? {}) as Record<string, unknown>;
      computer.madeBy = fleets.has(r.parent) ? `Fleet ${nameOf(r.parent)}` : `Computer ${named}`;
    }
    if (r.type === POOL_TYPE && typeof outputs.poolId === "string") {
      pools.set(outputs.poolId, `WarmPool ${named}`);
      for (const member of Array.isArray(outputs.members) ? outputs.members : []) if (typeof member === "string") of(member).madeBy ??= `WarmPool ${named}`;
    }
    const computer = outputs.computer ?? r.inputs?.computer;
    if (typeof computer !== "string") continue;
    if (r.type === COMMAND_TYPE) of(computer).commands.push({ resource: named, outputs });
    if (r.type === APP_TYPE) of(computer).apps.push({ resource: named, outputs });
  }
  return { computers: out, pools };
}

/** The stack's computers as its state declares them, by name, and its pools; secrets stay encrypted and are shown as "[secret]". */
export async function stackComputers(source: StackSource, signal: AbortSignal): Promise<StackState> {
  return computersOfExport(JSON.parse(await pulumi(source, ["stack", "export"], signal)));
}
