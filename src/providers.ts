// The provider registry: the one list of vendors, an entry a vendor from its folder's entry.ts.
// Every table that names vendors (settings, the rows Settings offers, the guard tests, the docs'
// maps) is derived from it. Loading this module loads no provider and no vendor SDK; a provider's
// module is imported only when its id is asked for.
import type { ComputerProvider, HostEnvironment, ProviderModule } from "./contract/provider.js";
import { redactWords } from "./daemon/redact.js";
import { fail, ok, OptionError, type Result } from "./daemon/result.js";
import { checkSettings } from "./contract/settings.js";
import { BROWSERBASE } from "./browserbase/entry.js";
import { DAYTONA } from "./daytona/entry.js";
import { DOCKER } from "./docker/entry.js";
import { E2B } from "./e2b/entry.js";
import { KERNEL } from "./kernel/entry.js";
import { KUBERNETES } from "./kubernetes/entry.js";
import { MODAL } from "./modal/entry.js";
import { PHONE_HARNESS } from "./phone-harness/entry.js";

/** Every vendor, in the order the registry names them. */
export const VENDORS = [DOCKER, MODAL, DAYTONA, E2B, BROWSERBASE, KERNEL, PHONE_HARNESS, KUBERNETES] as const;

type Vendor = (typeof VENDORS)[number];
export type ProviderId = Vendor["id"];
/** A vendor's entry by its id. */
export type VendorOf<I extends ProviderId> = Extract<Vendor, { id: I }>;

/** Each vendor's module by id, loaded when called. */
export const providers = Object.fromEntries(VENDORS.map((vendor) => [vendor.id, vendor.module])) as {
  [I in ProviderId]: VendorOf<I>["module"];
};

/** A vendor's entry by id (its settings schema, its offered row). */
export function entryOf<I extends ProviderId>(id: I): VendorOf<I> {
  return VENDORS.find((vendor) => vendor.id === id) as VendorOf<I>;
}

/** The provider a caller that names none gets: the local Docker engine. */
export const DEFAULT_PROVIDER: ProviderId = "docker";
export type ProviderModuleOf<I extends ProviderId> = Awaited<ReturnType<(typeof providers)[I]>>;
export type ProviderOptions<I extends ProviderId> = Parameters<ProviderModuleOf<I>["create"]>[0];

/** Every id the registry holds. */
export const PROVIDER_IDS: ProviderId[] = VENDORS.map((vendor) => vendor.id);

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
 * A provider built by id from a host's plain settings, held to its entry's settings schema:
 * its module maps them onto its options, or
 * they are its options. host is the host's environment, for a setting that defaults as the
 * vendor's own CLI finds it (Docker's engine: DOCKER_HOST, then the CLI's context).
 */
export async function providerFromSettings(id: string, settings: Record<string, unknown> = {}, host?: HostEnvironment): Promise<Result<ComputerProvider>> {
  if (!isProviderId(id)) return fail("invalid", unknownId(id), { field: "provider" });
  // Held to the provider's settings schema first: a misspelt key is refused, never ignored.
  const checked = checkSettings(id, entryOf(id).settings, settings);
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
