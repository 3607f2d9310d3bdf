// Kernel's facts the provider holds to (@onkernel/sdk's browsers.d.ts).

export const DEFAULT_API_URL = "https://api.onkernel.com";
/** timeout_seconds: 10 s to 72 h of inactivity (an idle timeout, no wall clock). */
export const MIN_LIFETIME_MS = 10_000;
export const MAX_LIFETIME_MS = 72 * 3_600_000;
/** Kernel takes up to 50 tags a browser. */
export const MAX_TAGS = 50;
/** One list page. */
export const PAGE = 100;
export const CREATE_MS = 120_000;
export const CALL_MS = 30_000;
