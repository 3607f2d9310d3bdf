// What an allowlist holds, as check refuses it: names, exact or *.suffix of two labels or more,
// and CIDRs with host bits zero over no range the address table refuses; at most 256 of each;
// each on ports 80 and 443. computerd's proxy (daemon/internal/egress/allow) reads its --allow
// entries by the same rule, and test/vectors/egress.json holds both to the same verdicts.
import type { NetworkPolicy, NetworkReadBack } from "./network.js";
import {
  ADDRESS_TABLE as ADDRESS_ROWS,
  type AddressClass,
  contains,
  formatAddress,
  formatPrefix,
  masked,
  overlapOf,
  overlaps,
  parseHost,
  parsePrefix,
  type Prefix,
  unmap,
} from "./address.js";

/** The only ports a listed host is reached on. */
export const EGRESS_PORTS = [80, 443] as const;
/** The most names, and the most CIDRs, one list holds. */
export const MAX_EACH = 256;

export const ALLOW_REFUSAL_KINDS = [
  "empty",
  "url",
  "port",
  "no-prefix",
  "host-bits",
  "bad-cidr",
  "range",
  "bad-name",
  "one-label",
  "wildcard",
  "too-many-names",
  "too-many-cidrs",
  /** Not a list of strings (the Go side reads argv, which is always strings). */
  "not-a-list",
] as const;
export type AllowRefusalKind = (typeof ALLOW_REFUSAL_KINDS)[number];

export interface AllowRefusal {
  kind: AllowRefusalKind;
  message: string;
  /** For a range: the class of the range it is over. */
  class?: AddressClass;
}

export type AllowlistCheck = { ok: true; entries: string[] } | { ok: false; refusals: AllowRefusal[] };

export interface AllowlistOptions {
  /** The test network's range, from checkTestNetwork: a CIDR wholly inside it is not refused for its class. */
  testNetwork?: string;
}

type Parsed = { name: string } | { suffix: string } | { cidr: Prefix } | { refusal: AllowRefusal };

const refuse = (entry: string, kind: AllowRefusalKind, words: string): Parsed => ({ refusal: { kind, message: `${JSON.stringify(entry)} ${words}` } });

function entryOf(e: string, testNetwork: Prefix | undefined): Parsed {
  if (e === "") return refuse(e, "bad-name", "is empty: an entry is a host name, *.suffix or CIDR");
  if (e.includes("://") || e.startsWith("//")) return refuse(e, "url", "is a URL: list its host name alone (the proxy takes ports 80 and 443)");
  if (e.includes("/")) {
    const head = parseHost(e.slice(0, e.indexOf("/")));
    if (!e.includes(":") && !(head && "address" in head))
      return refuse(e, "url", "is a URL or a path: list its host name alone (the proxy takes ports 80 and 443)");
    return cidrOf(e, testNetwork);
  }
  if (e.startsWith("[") || e.split(":").length === 2)
    return refuse(e, "port", "has a port: list the host alone (the proxy takes ports 80 and 443 on every entry)");
  const asHost = parseHost(e);
  if (asHost && "address" in asHost) {
    const a = unmap(asHost.address);
    return refuse(e, "no-prefix", `is an address with no prefix: write it as a CIDR, such as ${formatAddress(a)}/${a.bits}`);
  }
  if (e.includes(":")) return refuse(e, "bad-name", "is neither a host name nor a CIDR");
  const wild = e.startsWith("*.");
  const name = wild ? e.slice(2) : e;
  if (name.includes("*")) return refuse(e, "wildcard", 'has a * that is not a leading "*.": write *.example.com for every name below example.com');
  const host = parseHost(name);
  if (!host || !("name" in host) || name.endsWith("."))
    return refuse(e, "bad-name", "is not a host name: letters, digits and hyphens in labels of 1 to 63, joined by dots");
  if (!host.name.includes(".")) {
    return wild
      ? refuse(e, "one-label", "is a suffix of one label, which would list a whole top-level domain: give two labels or more")
      : refuse(e, "one-label", "is a name of one label, which is no public host: give its full name");
  }
  return wild ? { suffix: host.name } : { name: host.name };
}

function cidrOf(e: string, testNetwork: Prefix | undefined): Parsed {
  const p = parsePrefix(e);
  if (!p) return refuse(e, "bad-cidr", "is not a CIDR: an IPv4 address in dotted decimal or an IPv6 address, then / and a prefix length");
  const m = masked(p);
  if (m.addr.value !== p.addr.value) return refuse(e, "host-bits", `has host bits set: the range is ${formatPrefix(m)}`);
  if (testNetwork && p.length >= testNetwork.length && contains(testNetwork, p.addr)) return { cidr: p };
  const row = overlapOf(p);
  if (row)
    return {
      refusal: { kind: "range", class: row.class, message: `${JSON.stringify(e)} is over ${row.prefix}, a ${row.class} range the proxy never reaches` },
    };
  return { cidr: p };
}

/**
 * Checks a network allowlist: every refusal together, in words, or the list normalized
 * (names in lower case, then *.suffixes, then CIDRs, each group sorted, duplicates dropped).
 */
export function checkAllowlist(allow: unknown, options: AllowlistOptions = {}): AllowlistCheck {
  if (!Array.isArray(allow)) return { ok: false, refusals: [{ kind: "not-a-list", message: "an allowlist is a list of host names, *.suffixes and CIDRs" }] };
  if (allow.length === 0)
    return { ok: false, refusals: [{ kind: "empty", message: "an allowlist names at least one host or range; for no network, ask for none" }] };
  const testNetwork = options.testNetwork === undefined ? undefined : parsePrefix(options.testNetwork);
  const names = new Set<string>();
  const cidrs = new Set<string>();
  const refusals: AllowRefusal[] = [];
  for (const e of allow) {
    if (typeof e !== "string") {
      refusals.push({ kind: "not-a-list", message: "an allowlist's entries are strings: host names, *.suffixes and CIDRs" });
      continue;
    }
    const parsed = entryOf(e, testNetwork);
    if ("refusal" in parsed) refusals.push(parsed.refusal);
    else if ("cidr" in parsed) cidrs.add(formatPrefix(parsed.cidr));
    else if ("suffix" in parsed) names.add(`*.${parsed.suffix}`);
    else names.add(parsed.name);
  }
  if (names.size > MAX_EACH) refusals.push({ kind: "too-many-names", message: `an allowlist holds at most ${MAX_EACH} names, and this one has ${names.size}` });
  if (cidrs.size > MAX_EACH) refusals.push({ kind: "too-many-cidrs", message: `an allowlist holds at most ${MAX_EACH} CIDRs, and this one has ${cidrs.size}` });
  if (refusals.length > 0) return { ok: false, refusals };
  const sorted = (s: Set<string>) => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { ok: true, entries: [...sorted(names), ...sorted(cidrs)] };
}

/**
 * A list written as checkAllowlist writes an accepted one (lower case, CIDRs canonical, names
 * then CIDRs, sorted, no duplicates), judging nothing: two lists are the same policy when their
 * normal forms are equal.
 */
export function normalAllowlist(allow: readonly string[]): string[] {
  const names = new Set<string>();
  const cidrs = new Set<string>();
  for (const e of allow) {
    const p = e.includes("/") ? parsePrefix(e) : undefined;
    if (p) cidrs.add(formatPrefix(masked(p)));
    else names.add(e.toLowerCase());
  }
  const sorted = (s: Set<string>) => [...s].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...sorted(names), ...sorted(cidrs)];
}

/** Two lists are the same when their normal forms are: any order, any case of a name. */
export function sameAllowlist(a: unknown, b: unknown): boolean {
  return Array.isArray(a) && Array.isArray(b) && normalAllowlist(a as string[]).join("\0") === normalAllowlist(b as string[]).join("\0");
}

/** Two networks alike: the same policy, an allowlist's entries compared normalized and in any order. */
export function sameNetwork(a: NetworkReadBack, b: NetworkPolicy): boolean {
  if (typeof a === "string" || typeof b === "string") return a === b;
  if (!("allow" in a)) return false;
  return sameAllowlist(a.allow, b.allow);
}

export interface TestNetworkOptions {
  /** The test-only setting: without it every test network is refused. */
  testOnly?: boolean;
}

/**
 * The test-only seam: the one range a test's own Docker network is in, which the proxy then
 * reaches as if it were public. Refused unless the test-only setting is on; then it must be
 * narrow (an IPv4 /16 or longer, IPv6 /48 or longer) and wholly private or loopback, never
 * metadata, link-local or public. Returns the refusal's words, or undefined when it is taken.
 */
export function checkTestNetwork(range: unknown, options: TestNetworkOptions = {}): string | undefined {
  if (options.testOnly !== true) return "a test network is a test-only setting: a computer's allowlist never marks a private range reachable";
  const p = typeof range === "string" ? parsePrefix(range) : undefined;
  if (!p || masked(p).addr.value !== p.addr.value) return `the test network's range ${JSON.stringify(range)} is not a CIDR with host bits zero`;
  const least = p.addr.bits === 32 ? 16 : 48;
  if (p.length < least) return `the test network's range ${range as string} is wider than /${least}: give the one network a test made`;
  let holder: { length: number; class: AddressClass } | undefined;
  const testable = (c: AddressClass) => c === "private" || c === "loopback";
  for (const row of ADDRESS_ROWS) {
    const r = parsePrefix(row.prefix)!;
    if (!overlaps(r, p)) continue;
    if (r.length <= p.length) {
      if (!holder || r.length > holder.length) holder = { length: r.length, class: row.class };
    } else if (!testable(row.class)) {
      return `the test network's range ${range as string} holds ${row.prefix} (${row.class}): only a private or loopback range can be a test network`;
    }
  }
  if (!holder || !testable(holder.class))
    return `the test network's range ${range as string} is not a private or loopback range: a test never reaches a public address`;
  return undefined;
}

/** What a refusal adds when the provider gives no hint of its own (the proxy's own default). */
export const DEFAULT_HINT = "only the hosts and ranges on this computer's network allowlist are reached, on ports 80 and 443";
/** The most bytes a hint holds. */
export const MAX_HINT = 512;

/** Why a hint cannot go into every refusal the proxy answers, naming it as named (a proxy's spec says hint), or undefined: printable ASCII, at most MAX_HINT bytes. */
export function hintProblem(hint: unknown, named = "egress.hint"): string | undefined {
  if (typeof hint !== "string") return `${named} is a string: the words every refusal adds`;
  if (hint.length > MAX_HINT) return `${named} is ${hint.length} characters, more than ${MAX_HINT}`;
  if (!/^[\x20-\x7e]*$/.test(hint)) return `${named} is printable ASCII alone (it goes into every refusal the proxy answers)`;
  return undefined;
}
