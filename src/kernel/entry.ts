// Kernel's line in the registry: its settings, the row Settings offers, and its module (loaded
// only when asked for).
import { BROWSER_IMAGE } from "../kits/browser/labels.js";
import { vendorEntry } from "../contract/vendor-entry.js";
import { BROWSER_OFFER, requiredKeys } from "../contract/kinds.js";
import { KERNEL_SETTINGS } from "./settings.js";

export const KERNEL = vendorEntry({
  id: "kernel",
  settings: KERNEL_SETTINGS,
  offer: {
    label: "Kernel",
    keys: requiredKeys("KERNEL_API_KEY"),
    mounts: [],
    metered: true,
    capabilities: [BROWSER_OFFER],
    defaultImage: { browser: BROWSER_IMAGE },
  },
  module: () => import("./index.js"),
});
