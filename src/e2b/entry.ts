// E2B's line in the registry: its settings, the row Settings offers, and its module (loaded only
// when asked for).
import { vendorEntry } from "../contract/vendor-entry.js";
import { DESKTOP_OFFER, LINUX_OFFER, requiredKeys } from "../contract/kinds.js";
import { BASE_TEMPLATE, DESKTOP_TEMPLATE } from "./constants.js";
import { E2B_SETTINGS } from "./settings.js";

export const E2B = vendorEntry({
  id: "e2b",
  settings: E2B_SETTINGS,
  // E2B makes either, as Docker does: a spec's kind, or its kind option. An Archil mount is not
  // built on E2B yet: its computers take none.
  offer: {
    label: "E2B",
    keys: requiredKeys("E2B_API_KEY"),
    mounts: [],
    metered: true,
    capabilities: [LINUX_OFFER, DESKTOP_OFFER],
    defaultImage: { sandbox: BASE_TEMPLATE, desktop: DESKTOP_TEMPLATE },
  },
  module: () => import("./index.js"),
});
