// Modal's line in the registry: its settings, the row Settings offers, and its module (loaded
// only when asked for).
import { vendorEntry } from "../contract/vendor-entry.js";
import { LINUX_OFFER, requiredKeys } from "../contract/kinds.js";
import { DEFAULT_IMAGE } from "./constants.js";
import { MODAL_SETTINGS } from "./settings.js";

export const MODAL = vendorEntry({
  id: "modal",
  settings: MODAL_SETTINGS,
  offer: {
    label: "Modal",
    keys: requiredKeys("MODAL_TOKEN_ID", "MODAL_TOKEN_SECRET"),
    // An Archil mount is not built on Modal yet: its computers take none.
    mounts: [],
    metered: true,
    capabilities: [LINUX_OFFER],
    defaultImage: { sandbox: DEFAULT_IMAGE },
  },
  module: () => import("./index.js"),
});
