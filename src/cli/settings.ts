// Which provider the command talks to, and its settings: from flags, or from a stack's
// `agentrun:` config (--stack), never from stray environment variables (the Settings rule). A
// setting left unset defaults as it does for the Pulumi plugin: the host's environment is handed
// to the registry (src/contract/host.ts), so Docker's engine follows DOCKER_HOST and the docker context.
import type { Command } from "commander";
import type { ComputerProvider } from "../contract/provider.js";
import { hostEnvironment } from "../contract/host.js";
import { DEFAULT_PROVIDER, PROVIDER_IDS, type ProviderId, isProviderId, providerFromSettings } from "../providers.js";
import { bounded } from "./bounds.js";
import { CliError, EXIT, usageError } from "./errors.js";
import { agentrunConfig } from "./stack-config.js";

export interface ProviderFlags {
  provider?: string;
  set?: string[];
  stack?: string;
  backend?: string;
}

/** A repeatable flag's values, in order. */
export const collect = (value: string, previous: string[] = []) => [...previous, value];

/** The flags every subcommand that reaches computers takes. */
export function withProviderOptions(command: Command): Command {
  return command
    .option("--provider <id>", `the provider (${PROVIDER_IDS.join(", ")})`, DEFAULT_PROVIDER)
    .option("--set <key=value>", "a provider setting, as the stack's agentrun:<provider>.<key> (repeatable)", collect)
    .option("--stack <name>", "read the provider's settings from this stack's agentrun: config (in the current project)")
    .option("--backend <url>", "the stack's state backend (default: file://<project>/.pulumi, as npm run up keeps it)");
}

/** key=value pairs, each key once; a bad pair is a usage refusal naming the flag. */
export function pairs(given: string[] | undefined, flag: string, command: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of given ?? []) {
    const at = pair.indexOf("=");
    const shown = JSON.stringify(pair.slice(0, 40));
    if (at < 0) throw usageError(`${flag} takes key=value; ${shown} has no "=value"`, command);
    if (at === 0) throw usageError(`${flag} takes key=value; ${shown} has no key before its "="`, command);
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** The providers this command made: its end closes them (closeProviders). */
const made = new Set<ComputerProvider>();

/**
 * Closes every provider this command made, within boundMs: a Docker engine's kept connections, and
 * an ssh engine's shared login, which would otherwise outlive the command by a minute.
 */
export async function closeProviders(boundMs = 4_000): Promise<void> {
  const all = [...made];
  made.clear();
  const closed = Promise.all(all.map((p) => p.close?.().catch(() => undefined)));
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, boundMs).unref())]);
}

/** The provider the flags name and its settings: the stack's, with the --set ones on top. */
export interface Chosen {
  id: ProviderId;
  settings: Record<string, unknown>;
  /** The --set pairs alone (a refusal of one of them is the command line's fault). */
  given: Record<string, string>;
}

/** The provider's id and settings the flags choose (the stack's config read once). */
export async function chosenOf(flags: ProviderFlags, command: string, signal: AbortSignal): Promise<Chosen> {
  const id = flags.provider ?? DEFAULT_PROVIDER;
  if (!isProviderId(id)) throw usageError(`there is no provider "${id.slice(0, 40)}": the registry holds ${PROVIDER_IDS.join(", ")}`, command);
  let settings: Record<string, unknown> = {};
  if (flags.stack) {
    const config = await agentrunConfig({ stack: flags.stack, cwd: process.cwd(), ...(flags.backend ? { backend: flags.backend } : {}) }, bounded(signal));
    const stackSettings = config[id];
    if (stackSettings !== undefined && (typeof stackSettings !== "object" || stackSettings === null)) {
      throw new CliError(
        EXIT.usage,
        `the stack's agentrun:${id} is not an object of settings; set one with \`pulumi config set --path agentrun:${id}.<key> <value>\``,
      );
    }
    settings = { ...(stackSettings as Record<string, unknown> | undefined) };
  }
  const given = pairs(flags.set, "--set", command);
  return { id, settings: { ...settings, ...given }, given };
}

/** The provider built from chosen settings; closed at the command's end (closeProviders). */
export async function providerFrom({ id, settings, given }: Chosen, command: string): Promise<ComputerProvider> {
  const provider = await providerFromSettings(id, settings, hostEnvironment());
  if (!provider.ok && provider.error.field !== undefined && Object.hasOwn(given, provider.error.field.split(".")[0]!)) {
    // A --set key the provider does not take (or a value it refuses) is the command line's fault.
    throw usageError(`--set ${provider.error.field}: ${provider.error.message}`, command);
  }
  if (!provider.ok) {
    throw new CliError(
      EXIT.usage,
      `the ${id} provider could not be made from its settings: ${provider.error.message}; change one with --set <key>=<value>, or in the stack with \`pulumi config set --path agentrun:${id}.<key> <value>\``,
    );
  }
  made.add(provider.value);
  return provider.value;
}

/** The provider the flags name, built from the stack's settings with the --set ones on top. */
export async function providerOf(flags: ProviderFlags, command: string, signal: AbortSignal): Promise<ComputerProvider> {
  return providerFrom(await chosenOf(flags, command, signal), command);
}
