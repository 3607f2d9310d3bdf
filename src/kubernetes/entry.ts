// Kubernetes' line in the registry: its settings, the row Settings offers, and its module
// (loaded only when asked for).
import { vendorEntry } from "../contract/vendor-entry.js";
import { LINUX_OFFER, optionalKeys, requiredKeys } from "../contract/kinds.js";
import { KUBERNETES_SETTINGS } from "./settings.js";

export const KUBERNETES = vendorEntry({
  id: "kubernetes",
  settings: KUBERNETES_SETTINGS,
  // A cluster the user brings: its kubeconfig (a secret) and a namespace; the image is theirs.
  offer: {
    label: "Kubernetes",
    keys: [...requiredKeys("KUBECONFIG"), ...optionalKeys("KUBERNETES_NAMESPACE")],
    mounts: [],
    metered: false,
    capabilities: [LINUX_OFFER],
    defaultImage: {},
  },
  module: () => import("./index.js"),
});
