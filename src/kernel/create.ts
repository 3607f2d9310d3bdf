// The Kernel provider built from its options (the registry's create).
import type { KernelProviderOptions } from "./options.js";
import { KernelProvider } from "./provider.js";

export function create(options: KernelProviderOptions): KernelProvider {
  return new KernelProvider(options);
}
