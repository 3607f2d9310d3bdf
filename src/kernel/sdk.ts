// The shapes of Kernel's browsers API the provider reads (@onkernel/sdk 0.84.0,
// resources/browsers/browsers.d.ts: BrowserCreateResponse, BrowserRetrieveResponse, the list's
// items, BrowserCreateParams), and KernelRequest: one request to Kernel's API, which a host that
// already talks to Kernel passes as its own transport (the provider's own is api.ts's).

export interface KernelBrowser {
  session_id: string;
  cdp_ws_url: string;
  created_at: string;
  timeout_seconds: number;
  headless: boolean;
  stealth: boolean;
  browser_live_view_url?: string;
  deleted_at?: string;
  tags?: Record<string, string>;
}

export interface BrowserCreateParams {
  /** Seconds of inactivity before Kernel ends the browser: 10 to 259200 (72 hours). */
  timeout_seconds?: number;
  tags?: Record<string, string>;
  headless?: boolean;
}

export interface KernelRequestInit {
  method: "GET" | "POST" | "DELETE";
  /** From the API's root: /browsers, /browsers/{id}. */
  path: string;
  query?: Record<string, string>;
  body?: unknown;
  signal?: AbortSignal;
}

/** One request; resolves with the answer's JSON (undefined when empty), throws an error carrying the HTTP status otherwise. */
export type KernelRequest = (init: KernelRequestInit) => Promise<unknown>;
