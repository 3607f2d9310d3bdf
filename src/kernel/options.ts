// The Kernel provider's options, held to their rules at construction: a wrong one throws in words
// that never hold the key.
import { keyUrl } from "../contract/base-url.js";
import { OptionError } from "../daemon/result.js";
import { DEFAULT_API_URL } from "./constants.js";
import type { KernelRequest } from "./sdk.js";

export interface KernelProviderOptions {
  /** The caller's Kernel key; never read from the environment. Not with request. */
  apiKey?: string;
  /** A host's own transport, in place of apiKey. */
  request?: KernelRequest;
  /** Default https://api.onkernel.com. */
  apiUrl?: string;
  fetch?: typeof fetch;
  /** The version hello reports (a drifted twin's differs). */
  version?: string;
  /** First pause of release's read-back. */
  pollMs?: number;
}

export function checkOptions(options: KernelProviderOptions): void {
  if (typeof options !== "object" || options === null) throw new TypeError("KernelProvider takes options: { apiKey, ... }");
  if (options.request !== undefined && options.apiKey !== undefined)
    throw new OptionError("request", "KernelProvider's request", " replaces apiKey: give one of them");
  if (options.request === undefined && (typeof options.apiKey !== "string" || options.apiKey.trim() === "")) {
    throw new OptionError(
      "apiKey",
      "KernelProvider's apiKey",
      " is required: the caller's Kernel API key (it is never read from the environment), or request, a host's own transport",
    );
  }
  keyUrl(options.apiUrl ?? DEFAULT_API_URL, "apiUrl", "KernelProvider's apiUrl");
}
