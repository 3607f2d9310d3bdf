// Package allow is what an allowlist holds: names, exact or *.suffix of two labels or more,
// and CIDRs with host bits zero over no range the address table refuses, at most MaxEach of
// each; and the match of a host against it. src/egress/list.ts is held to the same verdicts
// through test/vectors/egress.json.
package allow
