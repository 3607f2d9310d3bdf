package proxy

import (
	"context"
	"net/netip"
	"slices"

	"agentrun.dev/computerd/internal/egress/addr"
	"agentrun.dev/computerd/internal/egress/allow"
)

// Refusal classes beside the address table's own.
const (
	OffList   = "off-list"  // a name or address the list does not hold
	WrongPort = "port"      // any port but 80 and 443
	Malformed = "malformed" // a request or host the proxy cannot read
	HostClash = "host"      // a Host header naming another host than the target
	Command   = "command"   // SOCKS5 BIND or UDP ASSOCIATE, or a method the proxy does not speak
	Upgrade   = "upgrade"   // an HTTP upgrade
	Limit     = "limit"     // past MaxOpen open or MaxTotal in all
	NoAnswer  = "no-answer" // a listed name that resolved to nothing
	Unreached = "unreached" // every checked address refused the dial
	Allowed   = "allowed"   // forwarded
	Ended     = "deadline"  // the proxy's deadline passed
)

// decision is what the check made of one target: the addresses to dial, or the class it
// was refused for, and whether the list holds the target, so a refusal says its true reason.
type decision struct {
	host   string
	port   uint16
	addrs  []netip.Addr
	class  string
	at     netip.Addr // the address the class is about, for the log
	listed bool
	named  bool // the target is a name, not an address
	req    *request
	cause  string // an upstream's TLS failure, in Go's words
}

// classOf is an address's class for this proxy: the host's own first, then the test seam,
// then the table.
func (c *Config) classOf(a netip.Addr) addr.Class {
	a = a.Unmap()
	if slices.Contains(c.HostAddrs, a) {
		return addr.ThisHost
	}
	if c.Reachable.IsValid() && c.Reachable.Contains(a) {
		return addr.Public
	}
	return addr.Classify(a)
}

// check decides one target against the list the proxy holds now. Every refusal here comes before any socket opens: a name off the
// list, or a request its rules refuse, before any lookup; an address by its class and the list's CIDRs of its own family; a
// listed name's answers each by its class, so that a name that answers one refused address is
// refused whole.
func (c *Config) check(ctx context.Context, list allow.List, host string, port uint16, q *request) decision {
	d := c.judge(list, host, port, q)
	if d.class != "" || !d.named {
		return d
	}
	lctx, cancel := context.WithTimeout(ctx, LookupBound)
	defer cancel()
	answers, err := c.Lookup(lctx, d.host)
	if err != nil || len(answers) == 0 {
		d.class = NoAnswer
		return d
	}
	for _, a := range answers {
		a = a.Unmap()
		d.addrs = append(d.addrs, a)
		if cl := c.classOf(a); cl != addr.Public && d.class == "" {
			d.class, d.at = string(cl), a
		}
	}
	return d
}

// judge is the check's part before any lookup: the port, the list, and a listed name's rules; a
// listed name that passes them is left named, with no addresses, for the lookup. A judge-only
// request (judge.go) is answered from this alone.
func (c *Config) judge(list allow.List, host string, port uint16, q *request) decision {
	d := decision{host: host, port: port}
	if !slices.Contains(c.Ports, port) {
		d.class = WrongPort
		return d
	}
	h, err := addr.ParseHost(host)
	if err != nil {
		d.class = Malformed
		return d
	}
	v := list.Target(h, c.classOf)
	d.listed = v.Listed
	if h.Addr.IsValid() {
		d.addrs, d.at = []netip.Addr{h.Addr}, h.Addr
		if v.Class != addr.Public {
			d.class = string(v.Class)
		} else if !v.Listed {
			d.class = OffList
		}
		return d
	}
	d.host, d.named = h.Name, true
	if !v.Listed {
		d.class = OffList
		return d
	}
	if !c.ruled(h.Name, q) {
		d.class, d.req = Rule, q
	}
	return d
}
