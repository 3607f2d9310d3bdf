// Package addr is the egress proxy's one address table: the class of every address a proxy
// may be asked to reach (public, or one of the classes it refuses), and the written forms of
// an address a client can send (decimal, octal and hex IPv4, short IPv4, IPv4-mapped, NAT64,
// 6to4), read the way a C library or a browser reads them so that no form slips past as a
// name. The TypeScript check holds itself to this table through test/vectors/egress.json.
package addr
