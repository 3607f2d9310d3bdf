// The provider's own KernelRequest, through fetch: Authorization: Bearer on every call, no
// redirect followed, an HTTP error thrown with its status alone (Kernel's words are never read).
import { jsonRequest } from "../kits/browser/call.js";
import type { KernelRequest } from "./sdk.js";

export function fetchRequest(apiKey: string, apiUrl: string, fetchImpl: typeof fetch = fetch): KernelRequest {
  return ({ method, path, query, body, signal }) =>
    jsonRequest(fetchImpl, apiUrl, path, {
      method,
      ...(query ? { query } : {}),
      ...(body !== undefined ? { body } : {}),
      headers: { Authorization: `Bearer ${apiKey}` },
      signal: signal ?? AbortSignal.timeout(60_000),
    });
}
