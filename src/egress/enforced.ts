// What an allowlisted computer's egress proxy enforces beyond its list, as the computer's
// read-back carries it: the rules the proxy runs, the hosts it holds a credential for (never a
// value), and whether the CA the computer's programs trust is that proxy's own.
import type { ComputerClient } from "../daemon/client.js";
import { readFile } from "../daemon/files.js";
import { EGRESS_CA_FILE, flagsOf } from "./proxy-command.js";
import { type EgressCredential, type EgressRule, ruleOf } from "./rules.js";
import { TRUST_BUNDLE } from "./trust-store.js";

/**
 * proxy: the computer's bundle holds its proxy's CA; other: it holds another (the proxy was made
 * again since and no program has connected to make the bundle again, or the bundle was changed
 * by hand); none: the proxy opens no TLS, so there is no CA to trust.
 */
export const TRUST_STATES = ["proxy", "other", "none"] as const;
export type TrustState = (typeof TRUST_STATES)[number];

export interface EgressEnforced {
  /** The rules the proxy runs, as read from its argv (or the file it reads them from). */
  rules: EgressRule[];
  /** The hosts the proxy sets a credential on, sorted, each once. */
  credentialHosts: string[];
  /** Whose CA the computer trusts, read from inside; absent when it could not be read (a computer not running). */
  trust?: TrustState;
}

/** What a computer's proxy holds, and whether it opens TLS (so there is a CA to trust). */
export interface ProxyHeld {
  enforced: Omit<EgressEnforced, "trust">;
  tls: boolean;
}

/**
 * What a proxy holds from its argv (its rules, unless given as it reads them from a file; --ca-file:
 * it opens TLS) and the credentials it was given (their hosts alone).
 */
export function proxyHeldOf(argv: unknown, credentials: readonly EgressCredential[], fileRules?: readonly string[]): ProxyHeld {
  const flags = flagsOf(argv);
  const rules = (fileRules ?? flags?.get("--rule") ?? []).map(ruleOf).filter((r): r is EgressRule => r !== undefined);
  const credentialHosts = [...new Set(credentials.map((c) => c.host))].sort();
  return { enforced: { rules, credentialHosts }, tls: flags?.has("--ca-file") === true };
}

/** The read-back's enforced: what the proxy holds, and whose CA the computer trusts, read through its daemon. */
export async function enforcedInside(held: ProxyHeld, client: ComputerClient, signal?: AbortSignal): Promise<EgressEnforced> {
  const trust = await trustOf(client, held.tls, signal);
  return { ...held.enforced, ...(trust ? { trust } : {}) };
}

/**
 * Whose CA the computer's bundle holds, read through its daemon: none when its proxy opens no TLS;
 * undefined when the proxy's CA cannot be read from inside (said by its absence, never as drift).
 */
export async function trustOf(client: ComputerClient, tls: boolean, signal?: AbortSignal): Promise<TrustState | undefined> {
  if (!tls) return "none";
  const bound = signal ? { signal } : {};
  const ca = await readFile(client, EGRESS_CA_FILE, bound);
  if (!ca.ok) return undefined;
  const bundle = await readFile(client, TRUST_BUNDLE, bound);
  if (!bundle.ok) return bundle.error.code === "not_found" ? "other" : undefined;
  const pem = Buffer.from(ca.value).toString("utf8").trim();
  return pem !== "" && Buffer.from(bundle.value).toString("utf8").includes(pem) ? "proxy" : "other";
}
