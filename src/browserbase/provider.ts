// BrowserbaseProvider: the one browser provider (src/kits/browser/provider.ts) on Browserbase's
// sessions (vendor.ts), through the host's SDK slice or the provider's own fetch transport.
import { browserCapabilities } from "../kits/browser/capabilities.js";
import { BrowserProvider } from "../kits/browser/provider.js";
import type { Capabilities } from "../contract/provider.js";
import { fetchApi } from "./api.js";
import { DEFAULT_API_URL, MAX_LIFETIME_MS } from "./constants.js";
import { type BrowserbaseProviderOptions, checkOptions } from "./options.js";
import { BrowserbaseVendor } from "./vendor.js";

export const CAPABILITIES: Capabilities = browserCapabilities(MAX_LIFETIME_MS);

export class BrowserbaseProvider extends BrowserProvider {
  constructor(options: BrowserbaseProviderOptions) {
    checkOptions(options);
    const api = options.api ?? fetchApi(options.apiKey!, options.apiUrl ?? DEFAULT_API_URL, options.fetch);
    super(new BrowserbaseVendor(api, options.projectId, CAPABILITIES), {
      ...(options.version !== undefined ? { version: options.version } : {}),
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
      // A host's own client goes where it goes; else the API's address.
      ...(options.api ? {} : { target: options.apiUrl ?? DEFAULT_API_URL }),
    });
  }
}
