package addr

import "net/netip"

// Classify is an address's class by the table: the longest row that holds it, with an
// IPv4-mapped address read as its IPv4 address, and a NAT64 or 6to4 address taking its
// embedded IPv4 address's class when that is refused (else the range's own, reserved).
func Classify(a netip.Addr) Class {
	a = a.Unmap()
	if a.Zone() != "" {
		return LinkLocal // only a link-local address carries a zone
	}
	r, ok := longest(a)
	if !ok {
		return Public
	}
	if v4, ok := Embedded(a); ok {
		if c := Classify(v4); c != Public {
			return c
		}
	}
	return r.Class
}

func longest(a netip.Addr) (Range, bool) {
	best, found := Range{}, false
	for _, r := range Table {
		if r.Prefix.Contains(a) && (!found || r.Prefix.Bits() > best.Prefix.Bits()) {
			best, found = r, true
		}
	}
	return best, found
}

var (
	nat64      = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour  = netip.MustParsePrefix("2002::/16")
)

// Embedded is the IPv4 address a NAT64 (the last 32 bits) or 6to4 (bits 16 to 47) address
// carries.
func Embedded(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	switch {
	case nat64.Contains(a), nat64Local.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	}
	return netip.Addr{}, false
}

// Overlap is the row of the table that shares an address with p, which a listed range must
// not: the longest row holding p whole, else the first row, in the table's order, inside p.
func Overlap(p netip.Prefix) (Range, bool) {
	p = p.Masked()
	var holder, inside Range
	for _, r := range Table {
		switch {
		case !r.Prefix.Overlaps(p):
		case r.Prefix.Bits() <= p.Bits():
			if !holder.Prefix.IsValid() || r.Prefix.Bits() > holder.Prefix.Bits() {
				holder = r
			}
		case !inside.Prefix.IsValid():
			inside = r
		}
	}
	if holder.Prefix.IsValid() {
		return holder, true
	}
	return inside, inside.Prefix.IsValid()
}
