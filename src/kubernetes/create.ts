// The Kubernetes provider built from its options alone, and the conformance suite's drifted twin.
import { KubernetesProvider, type KubernetesProviderOptions } from "./provider.js";

export type KubernetesOptions = KubernetesProviderOptions;

export function create(options: KubernetesOptions): KubernetesProvider {
  return new KubernetesProvider(options);
}

/** The drifted provider of the conformance suite: hello's version is held to another. */
export function driftedProvider(options: KubernetesOptions, version: string): KubernetesProvider {
  return new KubernetesProvider({ ...options, version });
}
