// The Browserbase provider built from its options (the registry's create).
import type { BrowserbaseProviderOptions } from "./options.js";
import { BrowserbaseProvider } from "./provider.js";

export function create(options: BrowserbaseProviderOptions): BrowserbaseProvider {
  return new BrowserbaseProvider(options);
}
