// The Daytona provider built from its options (the registry's create), and the conformance
// suite's drifted twin, apart from index.ts so the conformance module builds through them.
import { DaytonaProvider } from "./provider.js";
import type { DaytonaProviderOptions } from "./options.js";

export function create(options: DaytonaProviderOptions): DaytonaProvider {
  return new DaytonaProvider(options);
}

/** The same provider holding its daemon to another version, so none of its computers is handed out. */
export function driftedProvider(options: DaytonaProviderOptions): DaytonaProvider {
  return create({ ...options, version: `${create(options).version}-drifted` });
}
