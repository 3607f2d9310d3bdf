// Daytona's line in the registry: its settings, the row Settings offers, and its module (loaded
// only when asked for).
import { vendorEntry } from "../contract/vendor-entry.js";
import { LINUX_OFFER, optionalKeys, requiredKeys } from "../contract/kinds.js";
import { DEFAULT_SNAPSHOT } from "./constants.js";
import { DAYTONA_SETTINGS } from "./settings.js";

export const DAYTONA = vendorEntry({
  id: "daytona",
  settings: DAYTONA_SETTINGS,
  offer: {
    label: "Daytona",
    keys: [...requiredKeys("DAYTONA_API_KEY"), ...optionalKeys("DAYTONA_API_URL", "DAYTONA_TARGET")],
    // An Archil mount is not built on Daytona yet: its computers take none.
    mounts: [],
    metered: true,
    capabilities: [LINUX_OFFER],
    defaultImage: { sandbox: DEFAULT_SNAPSHOT },
  },
  module: () => import("./index.js"),
});
