// The Kubernetes provider's module, as the registry loads it: the provider class, create(options),
// MOUNT, CAPABILITIES and its settings as options (they are the same keys).
import type { MountKind } from "../contract/mount.js";
import type { KubernetesOptions } from "./create.js";
import type { KubernetesSettings } from "./settings.js";

export { CAPABILITIES, KubernetesProvider, type KubernetesProviderOptions } from "./provider.js";
export { create, driftedProvider, type KubernetesOptions } from "./create.js";
export { parseKubeconfig, type Credentials } from "./kubeconfig.js";
export { podManifest } from "./pod.js";

/** A Kubernetes computer takes no mount. */
export const MOUNT: readonly MountKind[] = [];

/** Where the token goes: the kubeconfig's cluster server (https alone; in-cluster, the Pod's https address). */
export const KEY_URLS: readonly string[] = ["kubeconfig"];

/** Its conformance module (reads COMPUTER_KUBERNETES_*, else this work tree's test cluster). */
export const conformance = () => import("./conformance/module.js");

/** A host's settings as options: the same keys, the two enumerations held to their values by settle. */
export function optionsFromSettings(settings: KubernetesSettings): KubernetesOptions {
  return settings as KubernetesOptions;
}
