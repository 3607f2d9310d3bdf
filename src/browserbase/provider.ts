// BrowserbaseProvider: the one browser provider (src/contract/browser/provider.ts) on Browserbase's
// sessions (vendor.ts), through the host's SDK slice or the provider's own fetch transport.
import { BrowserProvider } from "../contract/browser/provider.js";
import { BROWSER_IMAGE } from "../contract/kinds.js";
import type { Capabilities } from "../contract/provider.js";
import { fetchApi } from "./api.js";
import { DEFAULT_API_URL, MAX_LIFETIME_MS } from "./constants.js";
import { type BrowserbaseProviderOptions, checkOptions } from "./options.js";
import { BrowserbaseVendor } from "./vendor.js";

export const CAPABILITIES: Capabilities = {
  kind: "browser",
  os: "linux",
  daemon: "none",
  groups: ["cdp", "stream"],
  lifetime: "vendor",
  maxLifetimeMs: MAX_LIFETIME_MS,
  network: ["open"],
  release: ["delete"],
  isolation: "vm",
  defaults: { image: BROWSER_IMAGE },
};

export class BrowserbaseProvider extends BrowserProvider {
  constructor(options: BrowserbaseProviderOptions) {
    checkOptions(options);
    const api = options.api ?? fetchApi(options.apiKey!, options.apiUrl ?? DEFAULT_API_URL, options.fetch);
    super(new BrowserbaseVendor(api, options.projectId, CAPABILITIES), {
      ...(options.version !== undefined ? { version: options.version } : {}),
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    });
  }
}
