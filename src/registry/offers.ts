// What Settings offers: a row a vendor, each from its registry entry, its kinds derived from its
// capabilities; and the default image of a setting kind. Data and pure functions only.
import { DESKTOP_OFFER, offeredRow, type ProviderEntry, requiredKeys, type SettingKind } from "../contract/kinds.js";
import { VENDORS } from "../providers.js";

/** Orgo's default desktop image: Settings offers Orgo, which has no folder in the registry yet. */
export const ORGO_BASE_IMAGE = "linux";

/** The row of a vendor Settings offers with no folder yet; one with a folder keeps its row in its entry. */
const ORGO = offeredRow("orgo", {
  label: "Orgo",
  keys: requiredKeys("ORGO_API_KEY"),
  mounts: [],
  metered: true,
  capabilities: [DESKTOP_OFFER],
  defaultImage: { desktop: ORGO_BASE_IMAGE },
});

/** What Settings offers: every registry vendor's row, then those with no folder yet. */
export const PROVIDERS: readonly ProviderEntry[] = [...VENDORS.map((vendor) => offeredRow(vendor.id, vendor.offer)), ORGO];

/** The image a provider's computer of a setting kind starts from, or undefined: then the caller refuses in words. */
export function defaultImage(providerId: string, kind: SettingKind): string | undefined {
  return PROVIDERS.find((p) => p.id === providerId)?.defaultImage[kind];
}
