// The network a computer is asked for and the one read back: none, open, or an allowlist through
// an egress proxy. The contract's spec and read-back types carry them; the allowlist's rules here
// compare them.

/** none: no network; open: the default route out; allow: names and CIDRs through an egress proxy. */
export type NetworkPolicy = "none" | "open" | { allow: string[] };
/** A network as read back: a policy, or words for anything that is not one. */
export type NetworkReadBack = NetworkPolicy | { other: string };
export const NETWORK_KINDS = ["none", "open", "allow"] as const;
export type NetworkKind = (typeof NETWORK_KINDS)[number];

const ALLOW_BUT_ITS = "network allow, but its ";
/** An allowlist read back in other words ("network allow, but its egress proxy …") as a drift line says it ("the egress proxy …"). */
export const driftOfOther = (other: string): string => (other.startsWith(ALLOW_BUT_ITS) ? `the ${other.slice(ALLOW_BUT_ITS.length)}` : other);
