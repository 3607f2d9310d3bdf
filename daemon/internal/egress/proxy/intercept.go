package proxy

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"time"
)

// Classes of an intercepted tunnel's own refusals.
const (
	Untrusted  = "untrusted"  // the client's TLS to the proxy did not complete (it does not trust the proxy's CA, or spoke no TLS)
	Unverified = "unverified" // the upstream's certificate did not verify against the roots
)

// tlsHandshake is the first byte of a TLS record carrying a handshake.
const tlsHandshake = 0x16

// intercepted says whether a tunnel to host is opened rather than spliced: the host has rules or a
// credential, and the proxy holds a CA to show it with.
func (c *Config) intercepted(host string) bool {
	return c.CA != nil && c.opened(host)
}

// intercept serves a tunnel to a host the proxy reads: the client's TLS ends here, with a leaf
// the proxy's CA signs for the tunnel's host (whatever name the client's hello asks for), HTTP/1.1
// alone; its one request is judged by the host's rules, given its credentials and sent on as
// plain HTTP's is, over TLS to the upstream, verified against the roots as a client would; the
// upstream's response goes back as sent. The upstream is dialled only for a request that passes.
func (p *Proxy) intercept(c net.Conn, br *bufio.Reader, d decision) {
	c.SetDeadline(time.Now().Add(HeadTimeout))
	if first, err := br.Peek(1); err != nil || first[0] != tlsHandshake {
		p.log(d.host, d.port, netip.Addr{}, Untrusted)
		return
	}
	tc := tls.Server(bufferedConn{c, br}, &tls.Config{
		MinVersion: tls.VersionTLS12,
		NextProtos: []string{"http/1.1"},
		GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
			return p.cfg().CA.Leaf(d.host)
		},
	})
	if err := tc.Handshake(); err != nil {
		p.log(d.host, d.port, netip.Addr{}, Untrusted)
		return
	}
	defer tc.Close()
	tbr := bufio.NewReaderSize(tc, 4096)
	h, err := ReadHead(tbr)
	if err != nil {
		if err != io.EOF {
			p.log(d.host, d.port, netip.Addr{}, Malformed)
			reply(tc, 400, fmt.Sprintf("the request to %s is not one this proxy reads: an HTTP/1.1 request in origin form (GET /path HTTP/1.1)", d.host))
		}
		return
	}
	q := &request{method: h.Method, path: h.Target}
	switch {
	case !strings.HasPrefix(h.Target, "/"):
		d.class = Malformed
	default:
		if d.class = headClass(h, d.host, d.port, false); d.class == "" && !p.cfg().ruled(d.host, q) {
			d.class, d.req = Rule, q
		}
	}
	if d.class != "" {
		p.refuseHTTP(tc, d)
		return
	}
	if judgeOnly(h) {
		p.answerJudged(tc, d, q)
		return
	}
	raw, at, err := p.dial(d)
	if err != nil {
		d.class, d.at = Unreached, at
		p.refuseHTTP(tc, d)
		return
	}
	defer p.drop(raw)
	up := tls.Client(raw, &tls.Config{ServerName: d.host, RootCAs: p.cfg().UpstreamRoots, MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}})
	raw.SetDeadline(time.Now().Add(DialBound))
	if err := up.Handshake(); err != nil {
		d.class, d.at, d.cause = Unverified, at, err.Error()
		p.refuseHTTP(tc, d)
		return
	}
	raw.SetDeadline(time.Time{})
	c.SetDeadline(time.Time{})
	p.log(d.host, d.port, at, Allowed)
	if _, err := io.WriteString(up, originHead(h, d.host, d.port, h.Target, p.cfg().credentialsFor(d.host))); err != nil {
		return
	}
	go copyBody(up, tbr, h)
	widen(c)
	io.Copy(tc, up)
}

// bufferedConn is a client's connection read through the reader its first bytes were peeked into.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }
