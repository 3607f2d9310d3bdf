// A vendor's server address as a provider takes one: https:// with no path, or plaintext http://
// only to this machine's loopback with a port (a server of one's own, a test's).
const HTTPS = /^https:\/\/[^\s/]+(:\d+)?\/?$/;
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\]):\d+\/?$/;

/** True when url is https:// with no path, or http:// on the loopback with a port. */
export function isServerUrl(url: unknown): url is string {
  return typeof url === "string" && (HTTPS.test(url) || LOOPBACK.test(url));
}
