package addr

import "net/netip"

// Class is what an address is to the proxy. Every class but Public is refused.
type Class string

const (
	Public    Class = "public"
	Private   Class = "private"
	Loopback  Class = "loopback"
	LinkLocal Class = "link-local"
	Metadata  Class = "metadata"
	Multicast Class = "multicast"
	Reserved  Class = "reserved"
	// ThisHost is one of the Docker host's own addresses, given to the proxy at its start.
	ThisHost Class = "this-host"
)

// Classes are every class the table or the proxy gives, in a fixed order.
var Classes = []Class{Public, Private, Loopback, LinkLocal, Metadata, Multicast, Reserved, ThisHost}

// Range is one row of the table: every address in Prefix has Class, unless a longer row
// holding it says otherwise.
type Range struct {
	Prefix netip.Prefix
	Class  Class
}

func row(p string, c Class) Range { return Range{netip.MustParsePrefix(p), c} }

// Table is every range an address is refused in; an address in none of them is public. The
// rows that embed an IPv4 address (IPv4-mapped, NAT64, 6to4) are reserved as ranges, and an
// address in one takes its embedded address's class when that is refused too (Classify).
var Table = []Range{
	// IPv4
	row("0.0.0.0/8", Reserved),
	row("0.0.0.0/32", Loopback), // a connect to 0.0.0.0 reaches this machine's own loopback
	row("10.0.0.0/8", Private),
	row("100.64.0.0/10", Private), // carrier-grade NAT, shared address space
	row("100.100.100.200/32", Metadata),
	row("127.0.0.0/8", Loopback),
	row("168.63.129.16/32", Metadata), // Azure's wire server
	row("169.254.0.0/16", LinkLocal),
	row("169.254.169.254/32", Metadata),
	row("169.254.170.2/32", Metadata), // ECS task metadata
	row("172.16.0.0/12", Private),
	row("192.0.0.0/24", Reserved),
	row("192.0.2.0/24", Reserved),
	row("192.88.99.0/24", Reserved), // 6to4 relay anycast
	row("192.168.0.0/16", Private),
	row("198.18.0.0/15", Reserved),
	row("198.51.100.0/24", Reserved),
	row("203.0.113.0/24", Reserved),
	row("224.0.0.0/4", Multicast),
	row("240.0.0.0/4", Reserved),
	// IPv6: global unicast is 2000::/3 alone; the rest is reserved unless a longer row says.
	row("::/3", Reserved),
	row("::/128", Loopback), // as 0.0.0.0
	row("::1/128", Loopback),
	row("::ffff:0:0/96", Reserved),
	row("64:ff9b::/96", Reserved),
	row("64:ff9b:1::/48", Reserved),
	row("100::/64", Reserved),
	row("2001::/23", Reserved), // IETF protocol assignments, Teredo among them
	row("2001:db8::/32", Reserved),
	row("2002::/16", Reserved),
	row("3fff::/20", Reserved),
	row("4000::/2", Reserved),
	row("5f00::/16", Reserved),
	row("8000::/1", Reserved),
	row("fc00::/7", Private),
	row("fd00:ec2::254/128", Metadata),
	row("fe80::/10", LinkLocal),
	row("fec0::/10", Reserved),
	row("ff00::/8", Multicast),
}
