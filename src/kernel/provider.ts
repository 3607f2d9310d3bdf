// KernelProvider: the one browser provider (src/kits/browser/provider.ts) on Kernel's
// browsers (vendor.ts), through a host's KernelRequest or the provider's own fetch transport.
import { browserCapabilities } from "../kits/browser/capabilities.js";
import { BrowserProvider } from "../kits/browser/provider.js";
import type { Capabilities } from "../contract/provider.js";
import { fetchRequest } from "./api.js";
import { DEFAULT_API_URL, MAX_LIFETIME_MS } from "./constants.js";
import { checkOptions, type KernelProviderOptions } from "./options.js";
import { KernelVendor } from "./vendor.js";

export const CAPABILITIES: Capabilities = browserCapabilities(MAX_LIFETIME_MS);

export class KernelProvider extends BrowserProvider {
  constructor(options: KernelProviderOptions) {
    checkOptions(options);
    const request = options.request ?? fetchRequest(options.apiKey!, options.apiUrl ?? DEFAULT_API_URL, options.fetch);
    super(new KernelVendor(request, CAPABILITIES), {
      ...(options.version !== undefined ? { version: options.version } : {}),
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      // A host's own client goes where it goes; else the API's address.
      ...(options.request ? {} : { target: options.apiUrl ?? DEFAULT_API_URL }),
    });
  }
}
