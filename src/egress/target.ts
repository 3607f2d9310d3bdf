// What a computer's egress proxy makes of a target's host before any lookup: computerd's
// allow.Target, held to it by test/vectors/egress.json.
import { type AddressClass, classify, contains, parseHost, parsePrefix } from "./address.js";
import { normalAllowlist } from "./list.js";

/** A target's verdict: an address's class (none for a name), and whether the list holds it. */
export interface TargetVerdict {
  class?: AddressClass;
  listed: boolean;
}

/**
 * Judges a target's host against an allowlist checkAllowlist accepted: a name by the names and
 * *.suffixes; an address by its class (an IPv4-mapped one read as its IPv4 address) and by the
 * CIDRs of its own family as written, so [::ffff:a.b.c.d] is never in a listed a.b.c.d/n. The
 * proxy reaches an address only when it is public and listed, and a name only when it is listed
 * and every answer of its lookup is public. Undefined for a host the proxy cannot read.
 */
export function judgeTarget(allow: readonly string[], target: string): TargetVerdict | undefined {
  const host = parseHost(target);
  if (host === undefined) return undefined;
  const entries = normalAllowlist(allow);
  if ("name" in host) return { listed: entries.some((e) => (e.startsWith("*.") ? host.name.endsWith(e.slice(1)) : e === host.name)) };
  const cidrs = entries.flatMap((e) => parsePrefix(e) ?? []);
  return { class: classify(host.address), listed: cidrs.some((p) => contains(p, host.address)) };
}
