// The Browserbase provider's options, held to their rules at construction: a wrong one throws in
// words that never hold the key.
import { keyUrl } from "../contract/base-url.js";
import { OptionError } from "../daemon/result.js";
import { DEFAULT_API_URL } from "./constants.js";
import type { BrowserbaseApi } from "./sdk.js";

export interface BrowserbaseProviderOptions {
  /** The caller's Browserbase key; never read from the environment. Not with api. */
  apiKey?: string;
  /** A host's own transport (its SDK client's sessions), in place of apiKey. */
  api?: BrowserbaseApi;
  projectId: string;
  /** Default https://api.browserbase.com. */
  apiUrl?: string;
  fetch?: typeof fetch;
  /** The version hello reports (a drifted twin's differs). */
  version?: string;
  /** First pause of release's read-back. */
  pollMs?: number;
}

export function checkOptions(options: BrowserbaseProviderOptions): void {
  if (typeof options !== "object" || options === null) throw new TypeError("BrowserbaseProvider takes options: { apiKey, projectId, ... }");
  const hasKey = typeof options.apiKey === "string" && options.apiKey.trim() !== "";
  if (options.api !== undefined && options.apiKey !== undefined)
    throw new OptionError("api", "BrowserbaseProvider's api", " replaces apiKey: give one of them");
  if (options.api === undefined && !hasKey) {
    throw new OptionError(
      "apiKey",
      "BrowserbaseProvider's apiKey",
      " is required: the caller's Browserbase API key (it is never read from the environment), or api, a host's own transport",
    );
  }
  if (typeof options.projectId !== "string" || options.projectId.trim() === "") {
    throw new OptionError("projectId", "BrowserbaseProvider's projectId", " is required: the Browserbase project its sessions are made in");
  }
  keyUrl(options.apiUrl ?? DEFAULT_API_URL, "apiUrl", "BrowserbaseProvider's apiUrl");
}
