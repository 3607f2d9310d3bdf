// Docker's line in the registry: its settings, the row Settings offers, and its module (loaded
// only when asked for).
import { vendorEntry } from "../contract/vendor-entry.js";
import { DESKTOP_OFFER, LINUX_OFFER } from "../contract/kinds.js";
import { DOCKER_SETTINGS } from "./settings.js";

export const DOCKER = vendorEntry({
  id: "docker",
  settings: DOCKER_SETTINGS,
  // Docker makes either: a spec's kind, or its desktop option for the provider's own. It has no
  // default image: it builds its own.
  offer: { label: "Docker", keys: [], mounts: ["bind"], metered: false, capabilities: [LINUX_OFFER, DESKTOP_OFFER], defaultImage: {} },
  // Its registry module alone (index.ts adds the library's exports: images, the CLI).
  module: () => import("./module.js"),
});
