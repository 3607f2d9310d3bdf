// What an allowlisted computer's egress proxy enforces beyond its list, as the computer's
// read-back carries it: the rules the proxy runs, the hosts it holds a credential for (never a
// value), and whether the CA the computer's programs trust is that proxy's own.
import type { EgressRule } from "./rules.js";

/**
 * proxy: the computer's bundle holds its proxy's CA; other: it holds another (the proxy was made
 * again since and no program has connected to make the bundle again, or the bundle was changed
 * by hand); none: the proxy opens no TLS, so there is no CA to trust.
 */
export const TRUST_STATES = ["proxy", "other", "none"] as const;
export type TrustState = (typeof TRUST_STATES)[number];

export interface EgressEnforced {
  /** The rules the proxy runs, as read from its argv. */
  rules: EgressRule[];
  /** The hosts the proxy sets a credential on, sorted, each once. */
  credentialHosts: string[];
  /** Whose CA the computer trusts, read from inside; absent when it could not be read (a computer not running). */
  trust?: TrustState;
}
