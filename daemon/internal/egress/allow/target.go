package allow

import (
	"net/netip"

	"agentrun.dev/computerd/internal/egress/addr"
)

// Verdict is what a list makes of a target's host before any lookup.
type Verdict struct {
	Class  addr.Class `json:"class,omitempty"` // an address's class; empty for a name
	Listed bool       `json:"listed"`
}

// Target judges a target's host: a name by the names and suffixes; an address by its class
// (an IPv4-mapped one read as its IPv4 address, as the table reads it) and by the CIDRs of
// its own family as written, so [::ffff:a.b.c.d] is never in a listed a.b.c.d/n. classOf
// gives the class, so a proxy can add the host's own addresses to the table.
func (l List) Target(h addr.Host, classOf func(netip.Addr) addr.Class) Verdict {
	if !h.Addr.IsValid() {
		return Verdict{Listed: l.HasName(h.Name)}
	}
	return Verdict{Class: classOf(h.Addr), Listed: l.HasAddr(h.Addr)}
}
