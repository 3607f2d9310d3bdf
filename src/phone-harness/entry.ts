// The phone harness's line in the registry: its settings, the row Settings offers, and its
// module (loaded only when asked for).
import { vendorEntry } from "../contract/vendor-entry.js";
import { requiredKeys } from "../contract/kinds.js";
import { PHONE_IMAGE } from "./constants.js";
import { PHONE_HARNESS_SETTINGS } from "./settings.js";

export const PHONE_HARNESS = vendorEntry({
  id: "phone-harness",
  settings: PHONE_HARNESS_SETTINGS,
  offer: {
    label: "Phone harness",
    keys: requiredKeys("PHONE_HARNESS_API_KEY"),
    mounts: [],
    metered: true,
    // No apps.install: the phone harness refuses it, as it refuses exec and files.
    capabilities: [{ kind: "android", groups: ["screen", "input.touch", "input.keys", "apps", "apps.ui_tree"] }],
    defaultImage: { phone: PHONE_IMAGE },
  },
  module: () => import("./index.js"),
});
