package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"agentrun.dev/computerd/internal/egress/addr"
)

// hopByHop are the headers that end at the proxy. The request goes on with Connection: close,
// one request per connection, so every request the proxy forwards is one it checked.
var hopByHop = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authorization", "Proxy-Authenticate", "TE", "Trailer", "Upgrade"}

func (p *Proxy) serveHTTP(c net.Conn, br *bufio.Reader, admitted bool) {
	h, err := ReadHead(br)
	if err != nil {
		if err != io.EOF {
			p.log("", 0, netip.Addr{}, Malformed)
			reply(c, 400, "the request is not one this proxy reads: HTTP CONNECT host:port, a request to an absolute http:// URL, or SOCKS5 CONNECT")
		}
		return
	}
	connect := h.Method == "CONNECT"
	var host, path string
	var port uint16
	var ok bool
	if connect {
		host, port, ok = SplitHostPort(h.Target, 0)
		path = h.Target // what a rule refusal names
	} else {
		host, port, path, ok = AbsoluteTarget(h.Target)
	}
	if !ok {
		p.log("", 0, netip.Addr{}, Malformed)
		words := "the request's target is not one this proxy reads: CONNECT takes host:port, any other method an absolute http:// URL (an https:// URL goes through CONNECT)"
		reply(c, 400, words)
		return
	}
	d := decision{host: host, port: port}
	q := &request{method: h.Method, path: path, connect: connect}
	judging := judgeOnly(h)
	switch {
	case !admitted:
		d.class = Limit
	default:
		if d.class = headClass(h, host, port, connect); d.class == "" && judging {
			d = p.cfg().judge(p.List(), host, port, q)
		} else if d.class == "" {
			d = p.cfg().check(p.ctx, p.List(), host, port, q)
		}
	}
	if d.class != "" {
		p.refuseHTTP(c, d)
		return
	}
	if judging {
		p.answerJudged(c, d, q)
		return
	}
	if connect && p.cfg().intercepted(d.host) {
		if _, err := io.WriteString(c, established); err == nil {
			p.intercept(c, br, d)
		}
		return
	}
	up, at, err := p.dial(d)
	if err != nil {
		d.class, d.at = Unreached, at
		p.refuseHTTP(c, d)
		return
	}
	defer p.drop(up)
	p.log(d.host, d.port, at, Allowed)
	c.SetReadDeadline(time.Time{})
	if connect {
		if _, err := io.WriteString(c, established); err != nil {
			return
		}
		splice(c, br, up)
		return
	}
	if _, err := io.WriteString(up, originHead(h, host, port, path, p.cfg().credentialsFor(d.host))); err != nil {
		return
	}
	go copyBody(up, br, h)
	// The response goes back as sent: a redirect reaches the client and is never followed.
	widen(c)
	io.Copy(c, up)
}

// established answers a CONNECT the proxy carries.
const established = "HTTP/1.1 200 Connection established\r\n\r\n"

// headClass is the class a request's head alone is refused for, "" for none: a Host header
// naming another target, and (but in a CONNECT) an upgrade or a body framed two ways.
func headClass(h Head, host string, port uint16, connect bool) string {
	switch {
	case !sameHost(h, host, port):
		return HostClash
	case !connect && (len(h.Values("Upgrade")) > 0 || h.hasToken("Connection", "upgrade")):
		return Upgrade
	case !connect && !framed(h):
		return Malformed
	}
	return ""
}

// refuseHTTP answers a refused target in words that say why, and logs it.
func (p *Proxy) refuseHTTP(c net.Conn, d decision) {
	p.log(d.host, d.port, d.at, d.class)
	status, words := p.refusal(d)
	reply(c, status, words)
}

// reply writes a whole response whose body is "<status> <words>" and closes nothing.
func reply(c net.Conn, status int, words string) {
	reason := map[int]string{200: "OK", 400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}[status]
	body := strconv.Itoa(status) + " " + words + "\n"
	fmt.Fprintf(c, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=us-ascii\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", status, reason, len(body), body)
}

// sameHost says whether the request's Host headers, if any, name the target: one Host, the
// same host in any form it is written, and the same port.
func sameHost(h Head, host string, port uint16) bool {
	hosts := h.Values("Host")
	if len(hosts) == 0 {
		return true
	}
	if len(hosts) > 1 {
		return false
	}
	hh, hp, ok := SplitHostPort(hosts[0], port)
	if !ok || hp != port {
		return false
	}
	b, err := addr.ParseHost(host)
	if err != nil {
		return true // the target itself is refused as malformed
	}
	a, err := addr.ParseHost(hh)
	return err == nil && a.Name == b.Name && a.Addr.Unmap() == b.Addr.Unmap()
}

// framed says whether a request's body has one reading: none, one Content-Length of digits,
// or Transfer-Encoding: chunked alone.
func framed(h Head) bool {
	te, cl := h.Values("Transfer-Encoding"), h.Values("Content-Length")
	switch {
	case len(te) > 0:
		return len(te) == 1 && len(cl) == 0 && strings.EqualFold(te[0], "chunked")
	case len(cl) > 1:
		return false
	case len(cl) == 1:
		_, err := strconv.ParseUint(cl[0], 10, 63)
		return err == nil && cl[0] != "" && cl[0][0] != '+'
	}
	return true
}

// originHead is the head sent on: origin-form, the hop-by-hop headers and those Connection
// names dropped, a Host when the client sent none, the credentials set (any header the client
// sent of their names dropped), and Connection: close.
func originHead(h Head, host string, port uint16, path string, set []Header) string {
	drop := map[string]bool{}
	for _, n := range hopByHop {
		drop[strings.ToLower(n)] = true
	}
	for _, v := range h.Values("Connection") {
		for _, t := range strings.Split(v, ",") {
			drop[strings.ToLower(strings.TrimSpace(t))] = true
		}
	}
	drop["transfer-encoding"] = false // the body is copied as framed
	for _, x := range set {
		drop[strings.ToLower(x.Name)] = true
	}
	var b strings.Builder
	b.WriteString(h.Method + " " + path + " HTTP/1.1\r\n")
	if len(h.Values("Host")) == 0 {
		b.WriteString("Host: " + host)
		if port != 80 {
			b.WriteString(":" + strconv.Itoa(int(port)))
		}
		b.WriteString("\r\n")
	}
	for _, x := range h.Headers {
		if !drop[strings.ToLower(x.Name)] {
			b.WriteString(x.Name + ": " + x.Value + "\r\n")
		}
	}
	for _, x := range set {
		b.WriteString(x.Name + ": " + x.Value + "\r\n")
	}
	b.WriteString("Connection: close\r\n\r\n")
	return b.String()
}

// copyBody sends the request's body as framed, and nothing the client sends after it.
func copyBody(up net.Conn, br *bufio.Reader, h Head) {
	if len(h.Values("Transfer-Encoding")) > 0 {
		copyChunked(up, br)
		return
	}
	if cl := h.Values("Content-Length"); len(cl) == 1 {
		n, _ := strconv.ParseInt(cl[0], 10, 64)
		io.CopyN(up, br, n)
	}
}
