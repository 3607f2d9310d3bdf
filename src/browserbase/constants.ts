// Browserbase's facts the provider holds to (the SDK's sessions.d.ts and Browserbase's docs).

export const DEFAULT_API_URL = "https://api.browserbase.com";
/** A session's timeout: 60 s to 6 h (the SDK's api_timeout, in seconds). */
export const MIN_LIFETIME_MS = 60_000;
export const MAX_LIFETIME_MS = 6 * 3_600_000;
/** The bound of a create request, and of every other call. */
export const CREATE_MS = 120_000;
export const CALL_MS = 30_000;
