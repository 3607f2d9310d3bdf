// The phone harness provider built from its options (the registry's create), and the
// conformance suite's drifted twin, which holds its phones' clients to another version.
import type { PhoneHarnessOptions } from "./options.js";
import { PhoneHarnessProvider } from "./provider.js";

export function create(options: PhoneHarnessOptions): PhoneHarnessProvider {
  return new PhoneHarnessProvider(options);
}

export function driftedProvider(options: PhoneHarnessOptions): PhoneHarnessProvider {
  return create({ ...options, version: `${create(options).version}-drift` });
}
