// The page's one secret: 32 hex digits in the URL the command prints, then a cookie the page
// sends with each of its requests (or a header a script sends). A request without it, or for a
// host other than this machine's loopback at the server's port (a DNS rebinding), is refused.
// And the other secrets, the provider's: hider takes them out of every body served.
import { randomBytes, timingSafeEqual } from "node:crypto";
import { withoutValues } from "../../daemon/redact.js";

/** A new secret: 16 random bytes in hex. */
export function newSecret(): string {
  return randomBytes(16).toString("hex");
}

/** The header a script may send the secret in. */
export const SECRET_HEADER = "x-agentrun-ui-secret";
/** The query parameter of the URL the command prints. */
export const SECRET_PARAM = "secret";

/** The cookie's name: by port, as a browser keeps one jar for 127.0.0.1 whatever the port. */
export const cookieName = (port: number) => `agentrun-ui-${port}`;

/** The cookie the page is given with itself: sent back on the page's requests alone. */
export function secretCookie(port: number, secret: string): string {
  return `${cookieName(port)}=${secret}; HttpOnly; SameSite=Strict; Path=/`;
}

export interface RequestSeen {
  /** The request's path and query. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
}

export type Admission = { ok: true; by: "query" | "cookie" | "header" } | { ok: false; why: "host" | "secret" };

const same = (given: string | undefined, secret: string) =>
  given !== undefined && given.length === secret.length && timingSafeEqual(Buffer.from(given), Buffer.from(secret));

/** A cookie's value from a Cookie header. */
export function cookieOf(header: string | string[] | undefined, name: string): string | undefined {
  for (const line of [header ?? []].flat())
    for (const part of line.split(";")) {
      const at = part.indexOf("=");
      if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
    }
  return undefined;
}

/**
 * Whether a request may be answered: its Host is this machine's loopback at the server's port, and
 * it carries the secret: in the query (the page itself, as the printed URL asks for it), or as the
 * cookie or header (the page's own requests).
 */
export function admit(request: RequestSeen, secret: string, port: number): Admission {
  const host = String(request.headers.host ?? "");
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return { ok: false, why: "host" };
  const query = new URL(request.url, "http://127.0.0.1").searchParams.get(SECRET_PARAM) ?? undefined;
  if (same(query, secret)) return { ok: true, by: "query" };
  if (same(cookieOf(request.headers.cookie, cookieName(port)), secret)) return { ok: true, by: "cookie" };
  const header = request.headers[SECRET_HEADER];
  if (same(typeof header === "string" ? header : undefined, secret)) return { ok: true, by: "header" };
  return { ok: false, why: "secret" };
}

/** Words with each configured secret (a vendor's key) replaced by "<secret>": every body the server sends goes through it. */
export function hider(secrets: readonly string[]): (text: string) => string {
  const shown = secrets.filter((s) => s.length >= 4);
  return (text) => withoutValues(text, shown, "<secret>");
}
