// Where a vendor's key may be sent: the one rule every vendor that sends a key holds its URLs to.
// https, or plaintext http to this machine's loopback alone (a fake, a server of one's own); no
// user or password in the URL, no query or fragment (a path is appended to it). A port is never
// required; a path is allowed unless the client dials an address alone (gRPC).
import { OptionError } from "../daemon/result.js";

export interface KeyUrlRule {
  /** The URL may hold a path (an HTTP API's base); false for an address alone (a gRPC server). Default true. */
  path?: boolean;
  /** Plaintext http to the loopback is allowed; false where the client speaks TLS alone. Default true. */
  loopback?: boolean;
}

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** True for this machine's loopback as a URL's hostname spells it: localhost, 127.0.0.0/8, [::1]. */
function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || LOOPBACK_V4.test(hostname);
}

/** Why the key may not be sent to url, in words that follow its name ("is …", "holds …"); undefined when it may. */
export function keyUrlProblem(url: unknown, rule: KeyUrlRule = {}): string | undefined {
  if (typeof url !== "string") return "is not a string";
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "is not a URL";
  }
  if (parsed.username || parsed.password) return "holds a user or password";
  if (parsed.search || parsed.hash || url.includes("?") || url.includes("#")) return "holds a query or a fragment";
  if (rule.path === false && parsed.pathname !== "/") return "holds a path; it is an address alone (scheme, host and port)";
  if (parsed.protocol === "https:") return undefined;
  if (rule.loopback === false) return "is not https, so the key is never sent to it";
  if (parsed.protocol === "http:" && isLoopback(parsed.hostname)) return undefined;
  return "is neither https nor http to this machine's loopback (localhost, 127.0.0.0/8, [::1]), so the key is never sent to it";
}

/**
 * An option's URL held to keyUrlProblem, with no trailing slash: throws an OptionError naming the
 * option (named: how the words name it, "DaytonaProvider's apiUrl") before any request is made.
 */
export function keyUrl(url: unknown, option: string, named: string, rule?: KeyUrlRule): string {
  const problem = keyUrlProblem(url, rule);
  if (problem) throw new OptionError(option, named, ` ${problem}`);
  return (url as string).replace(/\/+$/, "");
}
