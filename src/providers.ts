// The provider registry: one lazy line per vendor. Loading this module loads no provider and
// no vendor SDK; a provider's file is imported only when its id is asked for.
import type { ComputerProvider, HostEnvironment, ProviderModule } from "./contract/provider.js";
import { redactWords } from "./contract/redact.js";
import { fail, ok, OptionError, type Result } from "./contract/result.js";

export const providers = {
  // Docker's registry module alone (index.ts adds the library's exports: images, the CLI).
  docker: () => import("./docker/module.js"),
  modal: () => import("./modal/index.js"),
  daytona: () => import("./daytona/index.js"),
  e2b: () => import("./e2b/index.js"),
  browserbase: () => import("./browserbase/index.js"),
  kernel: () => import("./kernel/index.js"),
  "phone-harness": () => import("./phone-harness/index.js"),
  kubernetes: () => import("./kubernetes/index.js"),
} satisfies Record<string, () => Promise<ProviderModule<never>>>;

export type ProviderId = keyof typeof providers;

/** The provider a caller that names none gets: the local Docker engine. */
export const DEFAULT_PROVIDER: ProviderId = "docker";
export type ProviderModuleOf<I extends ProviderId> = Awaited<ReturnType<(typeof providers)[I]>>;
export type ProviderOptions<I extends ProviderId> = Parameters<ProviderModuleOf<I>["create"]>[0];

/** Every id the registry holds. */
export const PROVIDER_IDS = Object.keys(providers) as ProviderId[];

export function isProviderId(id: unknown): id is ProviderId {
  return typeof id === "string" && Object.hasOwn(providers, id);
}

function unknownId(id: unknown): string {
  const shown = typeof id === "string" && id.length <= 40 && /^[\w.-]*$/.test(id) ? `"${id}"` : "that id";
  return `there is no provider ${shown}: the registry holds ${PROVIDER_IDS.join(", ")}`;
}

/** A provider's module by id (its MOUNT, CAPABILITIES, create). Throws in words for an id it does not hold. */
export async function providerModule<I extends ProviderId>(id: I): Promise<ProviderModuleOf<I>>;
export async function providerModule(id: string): Promise<ProviderModule<never>>;
export async function providerModule(id: string): Promise<ProviderModule<never>> {
  if (!isProviderId(id)) throw new TypeError(unknownId(id));
  return providers[id]();
}

/** A provider built by id from its options; an unknown id, or options its create refuses, is invalid in words. */
export async function providerFor<I extends ProviderId>(id: I, options: ProviderOptions<I>): Promise<Result<ComputerProvider>>;
export async function providerFor(id: string, options: unknown): Promise<Result<ComputerProvider>>;
export async function providerFor(id: string, options: unknown): Promise<Result<ComputerProvider>> {
  if (!isProviderId(id)) return fail("invalid", unknownId(id), { field: "provider" });
  const module = (await providers[id]()) as ProviderModule<unknown>;
  try {
    return ok(module.create(options));
  } catch (error) {
    return refusedBy(id, error);
  }
}

/** A provider's refusal of its options, in its words; one option's refusal (OptionError) also as an option detail. */
function refusedBy(id: string, error: unknown): Result<never> {
  // A provider's words never hold a key; redacted all the same, since they cross into results.
  const words = `${id}: ${redactWords(error instanceof Error ? error.message : String(error))}`;
  if (!(error instanceof OptionError)) return fail("invalid", words);
  return fail("invalid", words, { detail: { kind: "option", provider: id, option: error.option, problem: redactWords(error.problem) } });
}

/**
 * A provider built by id from a host's plain settings, held to its settings schema (src/contract/settings.ts):
 * its module maps them onto its options, or
 * they are its options. host is the host's environment, for a setting that defaults as the
 * vendor's own CLI finds it (Docker's engine: DOCKER_HOST, then the CLI's context).
 */
export async function providerFromSettings(id: string, settings: Record<string, unknown> = {}, host?: HostEnvironment): Promise<Result<ComputerProvider>> {
  if (!isProviderId(id)) return fail("invalid", unknownId(id), { field: "provider" });
  // Held to the provider's settings schema first: a misspelt key is refused, never ignored.
  const checked = (await import("./contract/settings.js")).checkSettings(id, settings);
  if (!checked.ok) return checked;
  const module = (await providers[id]()) as ProviderModule<unknown>;
  let options: unknown;
  try {
    options = module.optionsFromSettings ? module.optionsFromSettings(checked.value, host) : checked.value;
  } catch (error) {
    return refusedBy(id, error);
  }
  return providerFor(id, options);
}
