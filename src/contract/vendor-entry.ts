// A vendor's entry in the registry (src/providers.ts): its id, its settings schema, the row
// Settings offers of it, and its module, imported only when its id is asked for. Each vendor
// folder's entry.ts holds its own; loading one loads no provider and no vendor SDK.
import type { z } from "zod";
import type { Offer } from "./kinds.js";
import type { ProviderModule } from "./provider.js";

export interface VendorEntry<Id extends string = string, Settings extends z.ZodObject = z.ZodObject, Module = ProviderModule<never>> {
  /** The registry id a spec, a stack's config (agentrun:<id>) and the CLI name it by. */
  id: Id;
  /** Its settings as a host takes them from its user, its secret fields and tests' seams marked. */
  settings: Settings;
  /** The row Settings offers (its kinds are derived). */
  offer: Offer;
  /** Its module: create, MOUNT, CAPABILITIES, its options from settings, its conformance module. */
  module: () => Promise<Module>;
}

/** A vendor's entry, its id kept as a literal so the registry's ids are a type. */
export function vendorEntry<const Id extends string, Settings extends z.ZodObject, Module extends ProviderModule<never>>(
  entry: VendorEntry<Id, Settings, Module>,
): VendorEntry<Id, Settings, Module> {
  return entry;
}
