package addr

import (
	"errors"
	"net/netip"
	"strconv"
	"strings"
)

// Host is a target's host as the proxy reads it: an address, or a name in lower case with no
// trailing dot.
type Host struct {
	Addr netip.Addr // valid when the host is an address
	Name string     // set when it is a name
}

// ErrMalformed is a host that is neither an address in any form a client reads as one nor a
// name of letters, digits and hyphens.
var ErrMalformed = errors.New("neither an address nor a host name")

// MaxName is the longest name DNS carries.
const MaxName = 253

// ParseHost reads a host the way the programs behind the proxy would: "[v6]" or a v6
// address; an IPv4 address in any form inet_aton takes (1 to 4 parts, each decimal, 0x hex
// or 0 octal: 2130706433, 0177.0.0.1, 0x7f.1); else a name. A name whose last label is a
// number is no name (a browser reads it as an address, so does the proxy): malformed unless
// it is one.
func ParseHost(s string) (Host, error) {
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		a, err := netip.ParseAddr(s[1 : len(s)-1])
		if err != nil || !a.Is6() || a.Zone() != "" {
			return Host{}, ErrMalformed
		}
		return Host{Addr: a}, nil
	}
	if strings.Contains(s, ":") {
		a, err := netip.ParseAddr(s)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return Host{}, ErrMalformed
		}
		return Host{Addr: a}, nil
	}
	t := strings.TrimSuffix(s, ".")
	if t == "" || len(t) > MaxName {
		return Host{}, ErrMalformed
	}
	labels := strings.Split(t, ".")
	if numeric(labels[len(labels)-1]) {
		a, ok := parseIPv4(labels)
		if !ok {
			return Host{}, ErrMalformed
		}
		return Host{Addr: a}, nil
	}
	name := strings.ToLower(t)
	for _, l := range labels {
		if !label(l) {
			return Host{}, ErrMalformed
		}
	}
	return Host{Name: name}, nil
}

// numeric is a part inet_aton would try as a number: digits, or 0x and hex digits (0x alone
// included, which C reads as 0).
func numeric(p string) bool {
	if p == "" {
		return false
	}
	if len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X') {
		for _, c := range p[2:] {
			if !isHex(c) {
				return false
			}
		}
		return true
	}
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func isHex(c rune) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// parseIPv4 is inet_aton: the last part fills every byte the parts before it left.
func parseIPv4(parts []string) (netip.Addr, bool) {
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	var v [4]uint64
	for i, p := range parts {
		if !numeric(p) {
			return netip.Addr{}, false
		}
		n, ok := number(p)
		if !ok {
			return netip.Addr{}, false
		}
		v[i] = n
	}
	last := len(parts) - 1
	for i := 0; i < last; i++ {
		if v[i] > 255 {
			return netip.Addr{}, false
		}
	}
	room := uint(8 * (4 - last))
	if v[last] >= 1<<room {
		return netip.Addr{}, false
	}
	var out uint32
	for i := 0; i < last; i++ {
		out |= uint32(v[i]) << (24 - 8*uint(i))
	}
	out |= uint32(v[last])
	return netip.AddrFrom4([4]byte{byte(out >> 24), byte(out >> 16), byte(out >> 8), byte(out)}), true
}

func number(p string) (uint64, bool) {
	base, digits := 10, p
	switch {
	case len(p) >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'):
		base, digits = 16, p[2:]
		if digits == "" {
			return 0, true
		}
	case len(p) > 1 && p[0] == '0':
		base, digits = 8, p[1:]
	}
	n, err := strconv.ParseUint(digits, base, 32)
	return n, err == nil
}

// label is one LDH label: 1 to 63 letters, digits and hyphens, no hyphen at either end.
func label(l string) bool {
	if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
