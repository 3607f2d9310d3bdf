package allow

import (
	"fmt"
	"net/netip"

	"agentrun.dev/computerd/internal/egress/addr"
)

// ParseReachable checks the test-only seam: the one range a test's own network is in, which
// the proxy then reaches as if it were public. It is narrow (an IPv4 /16 or longer, an IPv6
// /48 or longer) and wholly private or loopback: never metadata, link-local, this host's or
// any other class. The TypeScript check refuses it outright unless a test-only setting is on.
func ParseReachable(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil || p.Addr().Zone() != "" || p.Masked() != p {
		return netip.Prefix{}, fmt.Errorf("the test network's range %q is not a CIDR with host bits zero", s)
	}
	least := 16
	if p.Addr().Is6() {
		least = 48
	}
	if p.Bits() < least {
		return netip.Prefix{}, fmt.Errorf("the test network's range %s is wider than /%d: give the one network a test made", p, least)
	}
	var holder addr.Range
	for _, r := range addr.Table {
		switch {
		case !r.Prefix.Overlaps(p):
		case r.Prefix.Bits() <= p.Bits():
			if !holder.Prefix.IsValid() || r.Prefix.Bits() > holder.Prefix.Bits() {
				holder = r
			}
		case !testable(r.Class):
			return netip.Prefix{}, fmt.Errorf("the test network's range %s holds %s (%s): only a private or loopback range can be a test network", p, r.Prefix, r.Class)
		}
	}
	if !holder.Prefix.IsValid() || !testable(holder.Class) {
		return netip.Prefix{}, fmt.Errorf("the test network's range %s is not a private or loopback range: a test never reaches a public address", p)
	}
	return p, nil
}

func testable(c addr.Class) bool { return c == addr.Private || c == addr.Loopback }
