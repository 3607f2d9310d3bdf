// Browserbase's line in the registry: its settings, the row Settings offers, and its module
// (loaded only when asked for).
import { BROWSER_IMAGE } from "../kits/browser/labels.js";
import { vendorEntry } from "../contract/vendor-entry.js";
import { BROWSER_OFFER, requiredKeys } from "../contract/kinds.js";
import { BROWSERBASE_SETTINGS } from "./settings.js";

export const BROWSERBASE = vendorEntry({
  id: "browserbase",
  settings: BROWSERBASE_SETTINGS,
  offer: {
    label: "Browserbase",
    keys: requiredKeys("BROWSERBASE_API_KEY", "BROWSERBASE_PROJECT_ID"),
    mounts: [],
    metered: true,
    capabilities: [BROWSER_OFFER],
    defaultImage: { browser: BROWSER_IMAGE },
  },
  module: () => import("./index.js"),
});
