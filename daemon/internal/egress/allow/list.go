package allow

import (
	"fmt"
	"net/netip"
	"sort"
	"strings"

	"agentrun.dev/computerd/internal/egress/addr"
)

// MaxEach is the most names, and the most CIDRs, one list holds.
const MaxEach = 256

// Ports are the only ports a listed host is reached on.
var Ports = []uint16{80, 443}

// Kind names why an entry is refused; the TypeScript check gives the same kind.
type Kind string

const (
	Empty        Kind = "empty"     // no entry at all: ask for none
	URL          Kind = "url"       // a scheme or a path
	Port         Kind = "port"      // host:port
	NoPrefix     Kind = "no-prefix" // an address written with no /prefix
	HostBits     Kind = "host-bits" // a CIDR with host bits set
	BadCIDR      Kind = "bad-cidr"  // a prefix that does not parse in its canonical form
	Range        Kind = "range"     // a CIDR over a range the address table refuses
	BadName      Kind = "bad-name"  // not letters, digits, hyphens and dots
	OneLabel     Kind = "one-label" // a name, or a suffix, of one label
	Wildcard     Kind = "wildcard"  // a * anywhere but a leading "*."
	TooManyNames Kind = "too-many-names"
	TooManyCIDRs Kind = "too-many-cidrs"
)

// Refusal is one entry refused, with its kind and words.
type Refusal struct {
	Entry   string
	Kind    Kind
	Class   addr.Class // for Range: the class of the range it overlaps
	Message string
}

// List is a checked allowlist: names and suffixes in lower case, CIDRs masked.
type List struct {
	Names    []string // exact
	Suffixes []string // "*.example.com" is held as "example.com"
	CIDRs    []netip.Prefix
}

// Parse checks every entry and returns the list, or every refusal. reachable is the test-only
// range a test network is in (invalid when none): a CIDR wholly inside it is not refused for
// its class.
func Parse(entries []string, reachable netip.Prefix) (List, []Refusal) {
	var l List
	var out []Refusal
	if len(entries) == 0 {
		return l, []Refusal{{Kind: Empty, Message: "an allowlist names at least one host or range; for no network, ask for none"}}
	}
	seenN, seenC := map[string]bool{}, map[netip.Prefix]bool{}
	for _, e := range entries {
		r, ok := entry(e, reachable)
		if !ok {
			out = append(out, r.refusal)
			continue
		}
		switch {
		case r.cidr.IsValid():
			if !seenC[r.cidr] {
				seenC[r.cidr] = true
				l.CIDRs = append(l.CIDRs, r.cidr)
			}
		case r.suffix != "":
			if !seenN["*."+r.suffix] {
				seenN["*."+r.suffix] = true
				l.Suffixes = append(l.Suffixes, r.suffix)
			}
		default:
			if !seenN[r.name] {
				seenN[r.name] = true
				l.Names = append(l.Names, r.name)
			}
		}
	}
	if n := len(l.Names) + len(l.Suffixes); n > MaxEach {
		out = append(out, Refusal{Kind: TooManyNames, Message: fmt.Sprintf("an allowlist holds at most %d names, and this one has %d", MaxEach, n)})
	}
	if n := len(l.CIDRs); n > MaxEach {
		out = append(out, Refusal{Kind: TooManyCIDRs, Message: fmt.Sprintf("an allowlist holds at most %d CIDRs, and this one has %d", MaxEach, n)})
	}
	if len(out) > 0 {
		return List{}, out
	}
	return l, nil
}

type parsed struct {
	name, suffix string
	cidr         netip.Prefix
	refusal      Refusal
}

func refuse(e string, k Kind, format string, a ...any) (parsed, bool) {
	return parsed{refusal: Refusal{Entry: e, Kind: k, Message: fmt.Sprintf("%q ", e) + fmt.Sprintf(format, a...)}}, false
}

func entry(e string, reachable netip.Prefix) (parsed, bool) {
	switch {
	case e == "":
		return refuse(e, BadName, "is empty: an entry is a host name, *.suffix or CIDR")
	case strings.Contains(e, "://") || strings.HasPrefix(e, "//"):
		return refuse(e, URL, "is a URL: list its host name alone (the proxy takes ports 80 and 443)")
	case strings.Contains(e, "/"):
		if h, err := addr.ParseHost(e[:strings.IndexByte(e, '/')]); !strings.Contains(e, ":") && (err != nil || !h.Addr.IsValid()) {
			return refuse(e, URL, "is a URL or a path: list its host name alone (the proxy takes ports 80 and 443)")
		}
		return cidr(e, reachable)
	}
	if strings.HasPrefix(e, "[") || strings.Count(e, ":") == 1 {
		return refuse(e, Port, "has a port: list the host alone (the proxy takes ports 80 and 443 on every entry)")
	}
	if h, err := addr.ParseHost(e); err == nil && h.Addr.IsValid() {
		return refuse(e, NoPrefix, "is an address with no prefix: write it as a CIDR, such as %s", netip.PrefixFrom(h.Addr.Unmap(), h.Addr.Unmap().BitLen()))
	}
	if strings.Contains(e, ":") {
		return refuse(e, BadName, "is neither a host name nor a CIDR")
	}
	name, wild := strings.CutPrefix(e, "*.")
	if strings.Contains(name, "*") {
		return refuse(e, Wildcard, "has a * that is not a leading \"*.\": write *.example.com for every name below example.com")
	}
	h, err := addr.ParseHost(name)
	if err != nil || h.Name == "" || strings.HasSuffix(name, ".") {
		return refuse(e, BadName, "is not a host name: letters, digits and hyphens in labels of 1 to 63, joined by dots")
	}
	if !strings.Contains(h.Name, ".") {
		if wild {
			return refuse(e, OneLabel, "is a suffix of one label, which would list a whole top-level domain: give two labels or more")
		}
		return refuse(e, OneLabel, "is a name of one label, which is no public host: give its full name")
	}
	if wild {
		return parsed{suffix: h.Name}, true
	}
	return parsed{name: h.Name}, true
}

func cidr(e string, reachable netip.Prefix) (parsed, bool) {
	p, err := netip.ParsePrefix(e)
	if err != nil || p.Addr().Zone() != "" {
		return refuse(e, BadCIDR, "is not a CIDR: an IPv4 address in dotted decimal or an IPv6 address, then / and a prefix length")
	}
	if p.Masked() != p {
		return refuse(e, HostBits, "has host bits set: the range is %s", p.Masked())
	}
	if reachable.IsValid() && p.Bits() >= reachable.Bits() && reachable.Contains(p.Addr()) {
		return parsed{cidr: p}, true
	}
	if r, ok := addr.Overlap(p); ok {
		pr := Refusal{Entry: e, Kind: Range, Class: r.Class, Message: fmt.Sprintf("%q is over %s, a %s range the proxy never reaches", e, r.Prefix, r.Class)}
		return parsed{refusal: pr}, false
	}
	return parsed{cidr: p}, true
}

// Entries are the list written back as entries, sorted: names, then *.suffixes, then CIDRs.
func (l List) Entries() []string {
	var names, cidrs []string
	names = append(names, l.Names...)
	for _, s := range l.Suffixes {
		names = append(names, "*."+s)
	}
	for _, c := range l.CIDRs {
		cidrs = append(cidrs, c.String())
	}
	sort.Strings(names)
	sort.Strings(cidrs)
	return append(names, cidrs...)
}

// HasName says whether a name (lower case, no trailing dot) is listed: exactly, or strictly
// below a listed suffix.
func (l List) HasName(name string) bool {
	for _, n := range l.Names {
		if n == name {
			return true
		}
	}
	for _, s := range l.Suffixes {
		if strings.HasSuffix(name, "."+s) {
			return true
		}
	}
	return false
}

// HasAddr says whether an address is in a listed CIDR of its own family.
func (l List) HasAddr(a netip.Addr) bool {
	for _, c := range l.CIDRs {
		if c.Contains(a) {
			return true
		}
	}
	return false
}
