package proxy

import (
	"bufio"
	"errors"
	"strconv"
	"strings"
)

// MaxHead bounds a request's head: its request line and headers together.
const MaxHead = 16 << 10

// maxHeaders bounds how many header lines one head holds.
const maxHeaders = 100

var errHead = errors.New("the request head is not HTTP/1")

// Head is an HTTP/1 request head as the proxy reads it.
type Head struct {
	Method  string
	Target  string // as sent: host:port for CONNECT, an absolute URI otherwise
	Proto   string // HTTP/1.0 or HTTP/1.1
	Headers []Header
}

// Header is one header line, its name as sent.
type Header struct{ Name, Value string }

// ReadHead reads one request head: a request line and header lines, each ended by CRLF (or a
// bare LF), then an empty line; at most MaxHead bytes. A header continued on the next line
// (obsolete folding), a name that is no token, or a NUL is refused: every reader behind the
// proxy must see the same head the proxy checked.
func ReadHead(r *bufio.Reader) (Head, error) {
	budget := MaxHead
	line := func() (string, error) {
		var b []byte
		for {
			frag, err := r.ReadSlice('\n')
			budget -= len(frag)
			if budget < 0 {
				return "", errHead
			}
			b = append(b, frag...)
			if err == nil {
				break
			}
			if err != bufio.ErrBufferFull {
				return "", err
			}
		}
		s := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
		if strings.ContainsAny(s, "\r\x00") {
			return "", errHead
		}
		return s, nil
	}
	first, err := line()
	if err != nil {
		return Head{}, err
	}
	parts := strings.Split(first, " ")
	if len(parts) != 3 || !token(parts[0]) || parts[1] == "" || (parts[2] != "HTTP/1.1" && parts[2] != "HTTP/1.0") {
		return Head{}, errHead
	}
	h := Head{Method: parts[0], Target: parts[1], Proto: parts[2]}
	for {
		l, err := line()
		if err != nil {
			return Head{}, err
		}
		if l == "" {
			return h, nil
		}
		if len(h.Headers) == maxHeaders || l[0] == ' ' || l[0] == '\t' {
			return Head{}, errHead
		}
		name, value, ok := strings.Cut(l, ":")
		if !ok || !token(name) {
			return Head{}, errHead
		}
		h.Headers = append(h.Headers, Header{name, strings.Trim(value, " \t")})
	}
}

// token is an HTTP token: the characters a method or a header's name is made of.
func token(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// Values are every value of the named header, case-insensitively.
func (h Head) Values(name string) []string {
	var out []string
	for _, x := range h.Headers {
		if strings.EqualFold(x.Name, name) {
			out = append(out, x.Value)
		}
	}
	return out
}

// hasToken says whether a comma-separated header names a token, case-insensitively.
func (h Head) hasToken(name, tok string) bool {
	for _, v := range h.Values(name) {
		for _, t := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), tok) {
				return true
			}
		}
	}
	return false
}

// SplitHostPort reads host:port, [v6]:port, or a host alone (with def as its port). The
// port is 1 to 65535 in decimal digits alone.
func SplitHostPort(s string, def uint16) (string, uint16, bool) {
	host, portText := s, ""
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, false
		}
		host, portText = s[:end+1], s[end+1:]
		if portText != "" {
			if portText[0] != ':' {
				return "", 0, false
			}
			portText = portText[1:]
			if portText == "" {
				return "", 0, false
			}
		}
	} else if i := strings.LastIndexByte(s, ':'); i >= 0 {
		host, portText = s[:i], s[i+1:]
		if portText == "" || strings.Contains(host, ":") {
			return "", 0, false
		}
	}
	if host == "" {
		return "", 0, false
	}
	if portText == "" {
		return host, def, def != 0
	}
	for _, c := range portText {
		if c < '0' || c > '9' {
			return "", 0, false
		}
	}
	n, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || n == 0 {
		return "", 0, false
	}
	return host, uint16(n), true
}

// AbsoluteTarget reads an absolute-form target, http://authority/path, into its authority's
// host and port and the origin-form path to send on. A userinfo part (user@host) is refused:
// the host a reader takes from it is not always the one the proxy would check.
func AbsoluteTarget(t string) (host string, port uint16, path string, ok bool) {
	scheme, rest, found := strings.Cut(t, "://")
	if !found || !strings.EqualFold(scheme, "http") {
		return "", 0, "", false
	}
	end := strings.IndexAny(rest, "/?#")
	authority, path := rest, "/"
	if end >= 0 {
		authority, path = rest[:end], rest[end:]
		if path[0] != '/' {
			path = "/" + path
		}
	}
	if strings.ContainsAny(authority, "@\\%") {
		return "", 0, "", false
	}
	host, port, ok = SplitHostPort(authority, 80)
	return host, port, path, ok
}
