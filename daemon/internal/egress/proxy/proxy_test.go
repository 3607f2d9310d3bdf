package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// Every hostile target is refused before any socket opens: the upstream accepts nothing and
// the proxy dials nothing.
func TestRefusalsOpenNoSocket(t *testing.T) {
	h := startProxy(t, nil)
	p := h.up.port
	get := func(target, host string) string {
		return fmt.Sprintf("GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, host)
	}
	connect := func(hostport string) string {
		return fmt.Sprintf("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostport, hostport)
	}
	cases := []struct {
		name, raw, class, words string
	}{
		{"a name off the list", connect(fmt.Sprintf("evil.test:%d", p)), OffList, "is not on this box's network list: ask the operator"},
		{"a name off the list, absolute-form", get(fmt.Sprintf("http://evil.test:%d/", p), fmt.Sprintf("evil.test:%d", p)), OffList, "is not on this box's network list: ask the operator"},
		{"the suffix itself, not below it", connect(fmt.Sprintf("suffix.test:%d", p)), OffList, "is not on this box's network list: ask the operator"},
		{"a name that ends like a suffix", connect(fmt.Sprintf("evilsuffix.test:%d", p)), OffList, "is not on this box's network list: ask the operator"},
		{"an address outside every listed CIDR", connect(fmt.Sprintf("8.8.8.8:%d", p)), OffList, "is not on this box's network list: ask the operator"},
		{"a listed name on another port", connect("allowed.test:22"), WrongPort, "is reached on ports 80, 443 and %d alone, not on port"},
		{"a listed address on another port", connect("127.0.2.1:8080"), WrongPort, "is reached on ports 80, 443 and %d alone, not on port"},
		{"loopback", connect(fmt.Sprintf("127.0.0.1:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"loopback in decimal", connect(fmt.Sprintf("2130706433:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"loopback in octal", connect(fmt.Sprintf("0177.0.0.1:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"loopback in hex", connect(fmt.Sprintf("0x7f000001:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"loopback in dotted hex", connect(fmt.Sprintf("0x7f.0x0.0x0.0x1:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"loopback short", connect(fmt.Sprintf("127.1:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"loopback with a trailing dot", connect(fmt.Sprintf("127.0.0.1.:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"loopback IPv4-mapped", connect(fmt.Sprintf("[::ffff:127.0.0.1]:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"loopback IPv4-mapped in hex", connect(fmt.Sprintf("[::ffff:7f00:1]:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"loopback IPv6", connect(fmt.Sprintf("[::1]:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"0.0.0.0, this machine's loopback", connect(fmt.Sprintf("0.0.0.0:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"0, as 0.0.0.0", connect(fmt.Sprintf("0:%d", p)), "loopback", "is not on this box's network list: ask the operator"},
		{"private", connect(fmt.Sprintf("10.0.0.1:%d", p)), "private", "is not on this box's network list: ask the operator"},
		{"private NAT64", connect(fmt.Sprintf("[64:ff9b::a00:1]:%d", p)), "private", "is not on this box's network list: ask the operator"},
		{"private 6to4", connect(fmt.Sprintf("[2002:a00:1::1]:%d", p)), "private", "is not on this box's network list: ask the operator"},
		{"public NAT64, still reserved", connect(fmt.Sprintf("[64:ff9b::808:808]:%d", p)), "reserved", "is not on this box's network list: ask the operator"},
		{"unique local IPv6", connect(fmt.Sprintf("[fd12::1]:%d", p)), "private", "is not on this box's network list: ask the operator"},
		{"metadata", connect(fmt.Sprintf("169.254.169.254:%d", p)), "metadata", "is not on this box's network list: ask the operator"},
		{"metadata in hex", get(fmt.Sprintf("http://0xa9fea9fe:%d/latest/meta-data/", p), fmt.Sprintf("0xa9fea9fe:%d", p)), "metadata", "is not on this box's network list: ask the operator"},
		{"metadata IPv6", connect(fmt.Sprintf("[fd00:ec2::254]:%d", p)), "metadata", "is not on this box's network list: ask the operator"},
		{"link-local", connect(fmt.Sprintf("169.254.1.1:%d", p)), "link-local", "is not on this box's network list: ask the operator"},
		{"link-local IPv6 with a zone", connect(fmt.Sprintf("[fe80::1%%25lo]:%d", p)), Malformed, ""},
		{"multicast", connect(fmt.Sprintf("224.0.0.1:%d", p)), "multicast", "is not on this box's network list: ask the operator"},
		{"reserved", connect(fmt.Sprintf("240.0.0.1:%d", p)), "reserved", "is not on this box's network list: ask the operator"},
		{"this host", connect(fmt.Sprintf("127.0.2.9:%d", p)), "this-host", "127.0.2.9 is on this box's network list but is an address of this box's own host, which this proxy never connects to, listed or not"},
		{"a listed name answering this host", connect(fmt.Sprintf("host.test:%d", p)), "this-host", "is on this box's network list but resolves to an address of this box's own host, which this proxy never connects to: the list is right, the resolver this box's host uses is not"},
		{"a listed name answering private", connect(fmt.Sprintf("private.test:%d", p)), "private", "is on this box's network list but resolves to a private address, which this proxy never connects to: the list is right, the resolver this box's host uses is not"},
		{"a listed name answering metadata", connect(fmt.Sprintf("metadata.test:%d", p)), "metadata", "is on this box's network list but resolves to a cloud metadata address, which this proxy never connects to: the list is right, the resolver this box's host uses is not"},
		{"a listed name answering IPv4-mapped loopback", connect(fmt.Sprintf("mapped.test:%d", p)), "loopback", "is on this box's network list but resolves to a loopback address, which this proxy never connects to: the list is right, the resolver this box's host uses is not"},
		{"a listed name answering one refused address among good ones", connect(fmt.Sprintf("rebind.test:%d", p)), "loopback", "is on this box's network list but resolves to a loopback address, which this proxy never connects to: the list is right, the resolver this box's host uses is not"},
		{"a listed name answering reserved", connect(fmt.Sprintf("reserved.test:%d", p)), "reserved", "reserved.test is on this box's network list but resolves to a reserved address, which this proxy never connects to: the list is right, the resolver this box's host uses is not"},
		{"a listed name answering reserved, absolute-form", get(fmt.Sprintf("http://reserved.test:%d/", p), fmt.Sprintf("reserved.test:%d", p)), "reserved", "reserved.test is on this box's network list but resolves to a reserved address, which this proxy never connects to: the list is right, the resolver this box's host uses is not"},
		{"a listed name whose lookup fails", connect(fmt.Sprintf("gone.test:%d", p)), NoAnswer, "gone.test is on this box's network list but did not resolve to any address: the list is right; check the name, and the resolver this box's host uses"},
		{"a listed name answering nothing, absolute-form", get(fmt.Sprintf("http://nothing.test:%d/", p), fmt.Sprintf("nothing.test:%d", p)), NoAnswer, "nothing.test is on this box's network list but did not resolve to any address: the list is right; check the name, and the resolver this box's host uses"},
		{"a listed address IPv4-mapped, outside every IPv6 CIDR", connect(fmt.Sprintf("[::ffff:127.0.2.1]:%d", p)), OffList, "[::ffff:127.0.2.1] is not on this box's network list: ask the operator"},
		{"a listed address IPv4-mapped in hex", connect(fmt.Sprintf("[::ffff:7f00:201]:%d", p)), OffList, "is not on this box's network list: ask the operator"},
		{"a listed address IPv4-mapped, absolute-form", get(fmt.Sprintf("http://[::ffff:127.0.2.1]:%d/", p), fmt.Sprintf("[::ffff:127.0.2.1]:%d", p)), OffList, "is not on this box's network list: ask the operator"},
		{"a listed name answering nothing", connect(fmt.Sprintf("nothing.test:%d", p)), NoAnswer, "nothing.test is on this box's network list but did not resolve to any address: the list is right; check the name, and the resolver this box's host uses"},
		{"a number past an address", connect(fmt.Sprintf("1.2.3.256:%d", p)), Malformed, ""},
		{"a Host header naming another host", get(fmt.Sprintf("http://allowed.test:%d/", p), fmt.Sprintf("evil.test:%d", p)), HostClash, "the request's Host header does not name"},
		{"a Host header naming another port", get(fmt.Sprintf("http://allowed.test:%d/", p), "allowed.test:80"), HostClash, "the request's Host header does not name"},
		{"a CONNECT whose Host names another host", fmt.Sprintf("CONNECT allowed.test:%d HTTP/1.1\r\nHost: evil.test\r\n\r\n", p), HostClash, "the request's Host header does not name"},
		{"two Host headers", fmt.Sprintf("GET http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test:%d\r\nHost: evil.test\r\n\r\n", p, p), HostClash, "the request's Host header does not name"},
		{"an upgrade", fmt.Sprintf("GET http://allowed.test:%d/ HTTP/1.1\r\nHost: allowed.test:%d\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", p, p), Upgrade, "asks for an HTTP upgrade, which this box's egress proxy does not carry: ask the operator"},
		{"an upgrade named in Connection alone", fmt.Sprintf("GET http://allowed.test:%d/ HTTP/1.1\r\nConnection: keep-alive, upgrade\r\n\r\n", p), Upgrade, "asks for an HTTP upgrade, which this box's egress proxy does not carry: ask the operator"},
		{"a body framed twice", fmt.Sprintf("POST http://allowed.test:%d/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", p), Malformed, ""},
		{"two lengths", fmt.Sprintf("POST http://allowed.test:%d/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", p), Malformed, ""},
		{"userinfo in the URL", get(fmt.Sprintf("http://allowed.test:%d@evil.test/", p), "evil.test"), Malformed, ""},
		{"an https URL", get(fmt.Sprintf("https://allowed.test:%d/", p), "allowed.test"), Malformed, ""},
		{"origin-form, no target", "GET / HTTP/1.1\r\nHost: allowed.test\r\n\r\n", Malformed, ""},
		{"a folded header", fmt.Sprintf("GET http://allowed.test:%d/ HTTP/1.1\r\nX-A: b\r\n c\r\n\r\n", p), Malformed, ""},
		{"HTTP/2's preface", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", Malformed, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := len(h.logs(t))
			out := h.roundTrip(t, tc.raw)
			want := map[string]string{Malformed: "400 ", NoAnswer: "502 "}[tc.class]
			if want == "" {
				want = "403 "
			}
			if !strings.HasPrefix(out, "HTTP/1.1 "+want) {
				t.Fatalf("answered %q, want %s", out, want)
			}
			if words := strings.ReplaceAll(tc.words, "%d", fmt.Sprint(p)); !strings.Contains(out, "\r\n\r\n"+want) || !strings.Contains(out, words) {
				t.Fatalf("the refusal's words: %q, want %q", out, words)
			}
			logs := h.logs(t)
			if len(logs) != before+1 || logs[len(logs)-1]["class"] != tc.class {
				t.Fatalf("logged %v, want one line of class %s", logs[before:], tc.class)
			}
			if n, d := h.up.accepted.Load(), h.dials.Load(); n != 0 || d != 0 {
				t.Fatalf("%d connections reached the upstream and %d dials were made", n, d)
			}
		})
	}
}

func TestSOCKSRefusalsOpenNoSocket(t *testing.T) {
	h := startProxy(t, nil)
	p := h.up.port
	ip := func(s string) []byte { a := netip.MustParseAddr(s); return a.AsSlice() }
	cases := []struct {
		name      string
		cmd, atyp byte
		addr      []byte
		port      uint16
		rep       byte
		class     string
	}{
		{"BIND", socksBind, 1, ip("127.0.2.1"), p, repCmdNotSupp, Command},
		{"UDP ASSOCIATE", socksUDPAssociate, 1, ip("127.0.2.1"), p, repCmdNotSupp, Command},
		{"loopback", socksConnect, 1, ip("127.0.0.1"), p, repNotAllowed, "loopback"},
		{"loopback IPv6", socksConnect, 4, ip("::1"), p, repNotAllowed, "loopback"},
		{"loopback IPv4-mapped", socksConnect, 4, ip("::ffff:127.0.0.1"), p, repNotAllowed, "loopback"},
		{"loopback as a hex name", socksConnect, 3, []byte("0x7f000001"), p, repNotAllowed, "loopback"},
		{"metadata as a decimal name", socksConnect, 3, []byte("2852039166"), p, repNotAllowed, "metadata"},
		{"a name off the list", socksConnect, 3, []byte("evil.test"), p, repNotAllowed, OffList},
		{"a listed name on another port", socksConnect, 3, []byte("allowed.test"), 25, repNotAllowed, WrongPort},
		{"rebinding", socksConnect, 3, []byte("rebind.test"), p, repNotAllowed, "loopback"},
		{"this host", socksConnect, 1, ip("127.0.2.9"), p, repNotAllowed, "this-host"},
		{"a listed address IPv4-mapped", socksConnect, 4, ip("::ffff:127.0.2.1"), p, repNotAllowed, OffList},
		{"a listed name answering nothing", socksConnect, 3, []byte("nothing.test"), p, repUnreachable, NoAnswer},
		{"a listed name whose lookup fails", socksConnect, 3, []byte("gone.test"), p, repUnreachable, NoAnswer},
		{"a listed name answering reserved", socksConnect, 3, []byte("reserved.test"), p, repNotAllowed, "reserved"},
		{"a listed name answering private", socksConnect, 3, []byte("private.test"), p, repNotAllowed, "private"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := h.dial(t)
			if rep := socks5(t, c, tc.cmd, tc.atyp, tc.addr, tc.port); rep != tc.rep {
				t.Fatalf("reply %d, want %d", rep, tc.rep)
			}
			if class := h.lastClass(t); class != tc.class {
				t.Fatalf("class %s, want %s", class, tc.class)
			}
			if n, d := h.up.accepted.Load(), h.dials.Load(); n != 0 || d != 0 {
				t.Fatalf("%d connections reached the upstream and %d dials were made", n, d)
			}
		})
	}
}

func TestAbsoluteFormGoesOnAsOriginFormOneRequestAtATime(t *testing.T) {
	h := startProxy(t, nil)
	raw := fmt.Sprintf("GET http://allowed.test:%d/path?q=secret HTTP/1.1\r\nHost: allowed.test:%d\r\nProxy-Authorization: Basic eA==\r\nConnection: keep-alive, X-Drop\r\nX-Drop: 1\r\nX-Keep: 2\r\n\r\n", h.up.port, h.up.port)
	out := h.roundTrip(t, raw)
	if !strings.HasSuffix(out, "saw GET /path?q=secret ") {
		t.Fatalf("answered %q", out)
	}
	head := h.up.lastHead(t)
	if got := head.Values("Connection"); len(got) != 1 || got[0] != "close" {
		t.Fatalf("Connection sent on: %v", got)
	}
	for _, gone := range []string{"Proxy-Authorization", "X-Drop"} {
		if len(head.Values(gone)) != 0 {
			t.Fatalf("%s went on", gone)
		}
	}
	if v := head.Values("X-Keep"); len(v) != 1 || v[0] != "2" {
		t.Fatalf("X-Keep: %v", v)
	}
	if h.lastClass(t) != Allowed {
		t.Fatal("not logged as allowed")
	}
}

func TestAHostAddedWhenTheClientSentNone(t *testing.T) {
	h := startProxy(t, nil)
	h.roundTrip(t, fmt.Sprintf("GET http://127.0.2.1:%d/x HTTP/1.0\r\n\r\n", h.up.port))
	if v := h.up.lastHead(t).Values("Host"); len(v) != 1 || v[0] != fmt.Sprintf("127.0.2.1:%d", h.up.port) {
		t.Fatalf("Host: %v", v)
	}
}

func TestARedirectIsPassedBackNeverFollowed(t *testing.T) {
	h := startProxy(t, nil)
	out := h.roundTrip(t, fmt.Sprintf("GET http://allowed.test:%d/redirect HTTP/1.1\r\nHost: allowed.test:%d\r\n\r\n", h.up.port, h.up.port))
	if !strings.HasPrefix(out, "HTTP/1.1 302 Found") || !strings.Contains(out, "Location: http://evil.test/") {
		t.Fatalf("answered %q", out)
	}
	time.Sleep(50 * time.Millisecond)
	if n, d := h.up.accepted.Load(), h.dials.Load(); n != 1 || d != 1 {
		t.Fatalf("%d connections and %d dials for one request", n, d)
	}
}

// Only the body as framed goes on: a second request smuggled after it never reaches the
// upstream.
func TestOnlyTheBodyAsFramedGoesOn(t *testing.T) {
	for name, framing := range map[string][2]string{
		"Content-Length": {"Content-Length: 5\r\n\r\n", "hello"},
		"chunked":        {"Transfer-Encoding: chunked\r\n\r\n", "3\r\nhel\r\n2;x=y\r\nlo\r\n0\r\n\r\n"},
	} {
		t.Run(name, func(t *testing.T) {
			h := startProxy(t, nil)
			smuggled := "GET http://evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n"
			out := h.roundTrip(t, fmt.Sprintf("POST http://allowed.test:%d/up HTTP/1.1\r\nHost: allowed.test:%d\r\n%s%s", h.up.port, h.up.port, framing[0]+framing[1], smuggled))
			if !strings.HasSuffix(out, "saw POST /up "+framing[1]) {
				t.Fatalf("answered %q", out)
			}
			h.up.mu.Lock()
			n := len(h.up.heads)
			h.up.mu.Unlock()
			if n != 1 {
				t.Fatalf("the upstream read %d requests", n)
			}
		})
	}
}

func TestConnectTunnels(t *testing.T) {
	h := startProxy(t, nil)
	for _, target := range []string{"allowed.test", "www.suffix.test", "127.0.2.1", "0x7f.0.0x201"} {
		c := h.dial(t)
		// The request inside the tunnel is sent with the CONNECT, before its answer.
		fmt.Fprintf(c, "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\nGET /in HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", target, h.up.port, target, h.up.port)
		b, _ := io.ReadAll(c)
		if !strings.HasPrefix(string(b), "HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 200 OK") || !strings.HasSuffix(string(b), "saw GET /in ") {
			t.Fatalf("%s: %q", target, b)
		}
	}
	logs := h.logs(t)
	if logs[0]["address"] != "127.0.2.1" || logs[0]["host"] != "allowed.test" {
		t.Fatalf("log %v", logs[0])
	}
}

func TestSOCKSConnect(t *testing.T) {
	h := startProxy(t, nil)
	for _, tc := range []struct {
		atyp byte
		addr []byte
	}{{3, []byte("allowed.test")}, {1, serverIP.AsSlice()}, {3, []byte("127.0.2.1")}} {
		c := h.dial(t)
		if rep := socks5(t, c, socksConnect, tc.atyp, tc.addr, h.up.port); rep != repOK {
			t.Fatalf("%s: reply %d", tc.addr, rep)
		}
		io.WriteString(c, "GET /socks HTTP/1.1\r\nHost: x\r\n\r\n")
		br := bufio.NewReader(c)
		line, _ := br.ReadString('\n')
		if line != "HTTP/1.1 200 OK\r\n" {
			t.Fatalf("%s: %q", tc.addr, line)
		}
	}
}

func TestASOCKSClientThatOffersNoMethodWeTakeIsRefused(t *testing.T) {
	h := startProxy(t, nil)
	c := h.dial(t)
	c.Write([]byte{5, 1, 2}) // username and password only
	b, _ := io.ReadAll(c)
	if string(b) != "\x05\xff" {
		t.Fatalf("answered %q", b)
	}
}

// Every log line holds host, port, address and class, and nothing of a path, a query or a
// header.
func TestLogLinesHoldFourFieldsAlone(t *testing.T) {
	h := startProxy(t, nil)
	h.roundTrip(t, fmt.Sprintf("GET http://allowed.test:%d/secret-path?token=s3cr3t HTTP/1.1\r\nHost: allowed.test:%d\r\nAuthorization: Bearer s3cr3t\r\n\r\n", h.up.port, h.up.port))
	h.roundTrip(t, fmt.Sprintf("GET http://evil.test:%d/secret-path?token=s3cr3t HTTP/1.1\r\nCookie: s3cr3t\r\n\r\n", h.up.port))
	h.roundTrip(t, "CONNECT evil\n.test:443 HTTP/1.1\r\n\r\n")
	h.logMu.Lock()
	raw := h.log.String()
	h.logMu.Unlock()
	if strings.Contains(raw, "secret") || strings.Contains(raw, "s3cr3t") {
		t.Fatalf("the log holds a path, query or header: %s", raw)
	}
	for _, l := range h.logs(t) {
		if len(l) != 4 || l["host"] == nil || l["port"] == nil || l["address"] == nil || l["class"] == nil {
			t.Fatalf("a log line with other fields: %v", l)
		}
	}
}

func TestPastMaxOpenIsRefused(t *testing.T) {
	h := startProxy(t, func(c *Config) { c.MaxOpen = 1 })
	held := h.dial(t)
	fmt.Fprintf(held, "CONNECT allowed.test:%d HTTP/1.1\r\n\r\n", h.up.port)
	line, _ := bufio.NewReader(held).ReadString('\n')
	if !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("the first: %q", line)
	}
	out := h.roundTrip(t, fmt.Sprintf("CONNECT allowed.test:%d HTTP/1.1\r\n\r\n", h.up.port))
	if !strings.HasPrefix(out, "HTTP/1.1 403") || !strings.Contains(out, "at most 1 connections open") || h.lastClass(t) != Limit {
		t.Fatalf("the second: %q", out)
	}
	if h.up.accepted.Load() != 1 {
		t.Fatalf("%d reached the upstream", h.up.accepted.Load())
	}
	held.Close()
	time.Sleep(100 * time.Millisecond)
	if out := h.roundTrip(t, fmt.Sprintf("GET http://allowed.test:%d/ HTTP/1.1\r\n\r\n", h.up.port)); !strings.Contains(out, "200 OK") {
		t.Fatalf("after the first closed: %q", out)
	}
}

func TestPastMaxTotalIsRefusedForGood(t *testing.T) {
	h := startProxy(t, func(c *Config) { c.MaxTotal = 2 })
	get := fmt.Sprintf("GET http://allowed.test:%d/ HTTP/1.1\r\n\r\n", h.up.port)
	for i := 0; i < 2; i++ {
		if out := h.roundTrip(t, get); !strings.Contains(out, "200 OK") {
			t.Fatalf("request %d: %q", i, out)
		}
	}
	for i := 0; i < 3; i++ {
		if out := h.roundTrip(t, get); !strings.HasPrefix(out, "HTTP/1.1 403") {
			t.Fatalf("past the total: %q", out)
		}
	}
	c := h.dial(t)
	if rep := socks5(t, c, socksConnect, 3, []byte("allowed.test"), h.up.port); rep != repNotAllowed {
		t.Fatalf("SOCKS past the total: %d", rep)
	}
	if h.up.accepted.Load() != 2 {
		t.Fatalf("%d reached the upstream", h.up.accepted.Load())
	}
}

// At its deadline the proxy stops forwarding: an open tunnel closes and nothing new is taken.
func TestTheDeadlineEndsEveryConnection(t *testing.T) {
	h := startProxy(t, func(c *Config) { c.Deadline = time.Now().Add(500 * time.Millisecond) })
	c := h.dial(t)
	fmt.Fprintf(c, "CONNECT allowed.test:%d HTTP/1.1\r\n\r\n", h.up.port)
	br := bufio.NewReader(c)
	if line, _ := br.ReadString('\n'); !strings.HasPrefix(line, "HTTP/1.1 200") {
		t.Fatalf("%q", line)
	}
	start := time.Now()
	io.ReadAll(br)
	if time.Since(start) > 3*time.Second {
		t.Fatal("the tunnel outlived the deadline")
	}
	if _, err := net.Dial("unix", h.socket); err == nil {
		t.Fatal("a connection was taken after the deadline")
	}
}

func TestAnUnreachableAddressIs502(t *testing.T) {
	h := startProxy(t, nil)
	h.up.l.Close()
	out := h.roundTrip(t, fmt.Sprintf("CONNECT 127.0.2.1:%d HTTP/1.1\r\n\r\n", h.up.port))
	if !strings.HasPrefix(out, "HTTP/1.1 502") || h.lastClass(t) != Unreached {
		t.Fatalf("%q", out)
	}
}
