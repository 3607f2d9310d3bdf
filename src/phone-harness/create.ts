// The phone harness provider built from its options (the registry's create), and the
// conformance suite's drifted twin, whose connections' hello reports another version.
import type { PhoneHarnessOptions } from "./options.js";
import { PhoneHarnessProvider } from "./provider.js";

export function create(options: PhoneHarnessOptions): PhoneHarnessProvider {
  return new PhoneHarnessProvider(options);
}

export function driftedProvider(options: PhoneHarnessOptions): PhoneHarnessProvider {
  return create({ ...options, helloVersion: `${create(options).version}-drift` });
}
