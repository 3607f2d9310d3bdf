package probe

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// MaxTargets is the most --connect targets one probe takes.
const MaxTargets = 16

// Target is one host:port, over TCP or (UDP) a DNS query in one datagram.
type Target struct {
	Host string // an IP literal in its canonical form, or a DNS name
	Port int
	UDP  bool
}

// String is the target as given back in the report: host:port, [v6]:port, with /udp.
func (t Target) String() string {
	s := net.JoinHostPort(t.Host, strconv.Itoa(t.Port))
	if t.UDP {
		s += "/udp"
	}
	return s
}

// Protocol is "tcp" or "udp".
func (t Target) Protocol() string {
	if t.UDP {
		return "udp"
	}
	return "tcp"
}

// isName says the host is a DNS name rather than an IP literal: only a name goes in SNI.
func (t Target) isName() bool {
	_, err := netip.ParseAddr(t.Host)
	return err != nil
}

// ParseTarget reads host:port or host:port/udp. The host is an IPv4 literal, an IPv6 literal
// in brackets (no zone), or a DNS name; the port 1 to 65535.
func ParseTarget(s string) (Target, error) {
	bad := func(why string) (Target, error) {
		return Target{}, fmt.Errorf("--connect %q: %s; give host:port or host:port/udp, such as 10.0.0.1:443, [fd00::1]:53/udp or example.com:80", clip(s), why)
	}
	var t Target
	hp := s
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		if s[i+1:] != "udp" {
			return bad(fmt.Sprintf("%q is no protocol: the one suffix is /udp", clip(s[i:])))
		}
		hp, t.UDP = s[:i], true
	}
	host, port, err := net.SplitHostPort(hp)
	if err != nil {
		return bad("it is not host:port")
	}
	if port == "" || len(port) > 5 || strings.Trim(port, "0123456789") != "" {
		return bad(fmt.Sprintf("the port %q is not a number", clip(port)))
	}
	if t.Port, _ = strconv.Atoi(port); t.Port < 1 || t.Port > 65535 {
		return bad(fmt.Sprintf("the port %s is out of range (1 to 65535)", port))
	}
	if strings.ContainsRune(host, ':') {
		a, err := netip.ParseAddr(host)
		if err != nil || !a.Is6() || a.Zone() != "" {
			return bad(fmt.Sprintf("%q is not an IPv6 address (without a zone)", clip(host)))
		}
		t.Host = a.String()
		return t, nil
	}
	if strings.HasPrefix(hp, "[") {
		return bad("only an IPv6 address goes in brackets")
	}
	if a, err := netip.ParseAddr(host); err == nil {
		t.Host = a.String()
		return t, nil
	}
	if why := nameProblem(host); why != "" {
		return bad(why)
	}
	t.Host = strings.ToLower(host)
	return t, nil
}

// nameProblem says why host is no DNS name, or "".
func nameProblem(host string) string {
	if host == "" {
		return "the host is empty"
	}
	if len(host) > 253 {
		return "the host name is longer than 253 characters"
	}
	labels := strings.Split(host, ".")
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return fmt.Sprintf("%q is not a host name: each label is 1 to 63 characters", clip(host))
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Sprintf("%q is not a host name: a label neither starts nor ends with '-'", clip(host))
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return fmt.Sprintf("%q is not an IP address or a host name (letters, digits, '-' and '.')", clip(host))
			}
		}
	}
	if strings.Trim(labels[len(labels)-1], "0123456789") == "" {
		return fmt.Sprintf("%q is not an IP address, and a host name does not end in a number", clip(host))
	}
	return ""
}

// clip keeps words about bad input short; %q then makes them printable.
func clip(s string) string {
	if r := []rune(s); len(r) > 64 {
		return string(r[:64]) + "..."
	}
	return s
}
