package probe

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// Outcomes, as the report names them.
const (
	Refused  = "refused"
	Accepted = "accepted"
	Answered = "answered"
)

// describe says in words what came back: any byte is an answer, and this names which. id is
// the DNS query's (0 when none was sent); tcpLen says a DNS message sits behind a 2-byte length.
func describe(b []byte, id uint16, tcpLen bool) string {
	dns := b
	if tcpLen && len(dns) >= 2 {
		dns = dns[2:]
	}
	switch {
	case id != 0 && len(dns) >= 4 && binary.BigEndian.Uint16(dns) == id && dns[2]&0x80 != 0:
		return "a DNS response with the query's id"
	case len(b) >= 6 && b[0] == 0x16 && b[1] == 3 && b[5] == 2:
		return "a TLS ServerHello"
	case len(b) >= 1 && b[0] == 0x15 && (len(b) < 2 || b[1] == 3):
		return "a TLS alert"
	case strings.HasPrefix(string(b), "HTTP/1."):
		return "an HTTP status line: " + printable(firstLine(b))
	case !tcpLen && id != 0:
		return fmt.Sprintf("a datagram of %d bytes that is not the DNS response", len(b))
	}
	if line := printable(firstLine(b)); len(line) >= 4 && !strings.Contains(line, "\\x") {
		return fmt.Sprintf("%d bytes of no expected protocol, beginning %q", len(b), line)
	}
	return fmt.Sprintf("%d bytes of no expected protocol", len(b))
}

func firstLine(b []byte) string {
	s := string(b)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// printable keeps at most 64 bytes, with anything but printable ASCII escaped.
func printable(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			out.WriteByte(c)
		} else {
			fmt.Fprintf(&out, "\\x%02x", c)
		}
	}
	return out.String()
}
