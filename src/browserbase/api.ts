// The provider's own transport for Browserbase's v1 API, through fetch: X-BB-API-Key on every
// call, no redirect followed, the SDK's slice (sdk.ts) as its shape, an HTTP error thrown with its
// status alone (the vendor's words are never read).
import { jsonRequest } from "../kits/browser/call.js";
import type { BrowserbaseApi } from "./sdk.js";

export function fetchApi(apiKey: string, apiUrl: string, fetchImpl: typeof fetch = fetch): BrowserbaseApi {
  const call = (path: string, signal: AbortSignal | undefined, more: { method?: "GET" | "POST"; body?: unknown; query?: Record<string, string> } = {}) =>
    jsonRequest(fetchImpl, apiUrl, path, { ...more, headers: { "X-BB-API-Key": apiKey }, signal: signal ?? AbortSignal.timeout(60_000) }) as Promise<never>;
  return {
    create: ({ api_timeout, ...body }, o) =>
      call("/v1/sessions", o?.signal, { method: "POST", body: { ...body, ...(api_timeout !== undefined ? { timeout: api_timeout } : {}) } }),
    retrieve: (id, o) => call(`/v1/sessions/${encodeURIComponent(id)}`, o?.signal),
    update: (id, body, o) => call(`/v1/sessions/${encodeURIComponent(id)}`, o?.signal, { method: "POST", body }),
    list: (query, o) =>
      call("/v1/sessions", o?.signal, { query: Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined)) as Record<string, string> }),
    debug: (id, _query, o) => call(`/v1/sessions/${encodeURIComponent(id)}/debug`, o?.signal),
  };
}
