package proxy

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/egress/allow"
	"agentrun.dev/computerd/internal/egress/ca"
)

// tlsUpstream is an HTTPS server on the test network with a certificate for allowed.test from a CA
// of its own (roots holds it), recording each request's method, path and Authorization.
type tlsUpstream struct {
	srv   *httptest.Server
	port  uint16
	roots *x509.CertPool
	mu    sync.Mutex
	seen  []string
	conns int
}

func startTLSUpstream(t testing.TB, name string) *tlsUpstream {
	t.Helper()
	own, err := ca.New("test upstream CA", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := own.Leaf(name)
	if err != nil {
		t.Fatal(err)
	}
	u := &tlsUpstream{roots: x509.NewCertPool()}
	u.roots.AddCert(own.Certificate())
	u.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.seen = append(u.seen, fmt.Sprintf("%s %s %q %s", r.Method, r.URL.RequestURI(), r.Header.Values("Authorization"), r.Proto))
		u.mu.Unlock()
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "tls hello %s %s %s", r.Method, r.URL.RequestURI(), body)
	}))
	l, err := net.Listen("tcp", netip.AddrPortFrom(serverIP, 0).String())
	if err != nil {
		t.Fatal(err)
	}
	u.srv.Listener = l
	u.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			u.mu.Lock()
			u.conns++
			u.mu.Unlock()
		}
	}
	u.srv.TLS = &tls.Config{Certificates: []tls.Certificate{*leaf}}
	// A body shorter than its Content-Length, passed on as framed, would hold the handler.
	u.srv.Config.ReadTimeout = 2 * time.Second
	u.srv.StartTLS()
	u.port = uint16(l.Addr().(*net.TCPAddr).Port)
	t.Cleanup(u.srv.Close)
	return u
}

func (u *tlsUpstream) requests() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.seen...)
}

// interceptor is a proxy whose CA intercepts allowed.test (a rule and a credential) in front of a
// TLS upstream; trust is a pool holding the proxy's CA, as a computer's store does.
func interceptor(t testing.TB, up *tlsUpstream, tweak func(*Config)) (*harness, *x509.CertPool) {
	t.Helper()
	authority, err := ca.New("agentrun egress proxy CA", time.Now().Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	h := startProxy(t, func(c *Config) {
		r, err := allow.ParseRule("allowed.test GET,HEAD /v1/items", c.List)
		if err != nil {
			t.Fatal(err)
		}
		c.Rules = []allow.Rule{r}
		c.Credentials = []allow.Credential{{Host: "allowed.test", Header: "Authorization", Value: "Bearer s3cret-key-0002"}}
		c.CA, c.UpstreamRoots = authority, up.roots
		c.Ports = append(c.Ports, up.port)
		if tweak != nil {
			tweak(c)
		}
	})
	trust := x509.NewCertPool()
	trust.AddCert(authority.Certificate())
	return h, trust
}

// connectTLS opens a CONNECT tunnel to host:port and a TLS client inside it.
func connectTLS(t testing.TB, h *harness, host string, port uint16, trust *x509.CertPool) (*tls.Conn, error) {
	t.Helper()
	c := h.dial(t)
	fmt.Fprintf(c, "CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n", host, port, host, port)
	br := bufio.NewReader(c)
	status, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
		rest, _ := io.ReadAll(br)
		t.Fatalf("CONNECT %s: %q %s %v", host, status, rest, err)
	}
	for line, _ := br.ReadString('\n'); line != "\r\n" && line != ""; line, _ = br.ReadString('\n') {
	}
	tc := tls.Client(bufferedConn{c, br}, &tls.Config{ServerName: host, RootCAs: trust, NextProtos: []string{"h2", "http/1.1"}})
	return tc, tc.Handshake()
}

// send writes raw, ends the client's side (TLS's close_notify) and reads all the proxy sends.
func send(t testing.TB, tc *tls.Conn, raw string) string {
	t.Helper()
	io.WriteString(tc, raw)
	tc.CloseWrite()
	b, _ := io.ReadAll(tc)
	return string(b)
}

// A tunnel to a host with rules and a credential is opened: the client meets a leaf of the
// proxy's CA for that host (HTTP/1.1 alone), each request is judged by the rules as plain HTTP is,
// given the credential (the client's own dropped), and sent on over TLS verified against the
// roots; a refused request never reaches the upstream; the key is never logged.
func TestInterceptJudgesEachRequestInsideTLS(t *testing.T) {
	up := startTLSUpstream(t, "allowed.test")
	h, trust := interceptor(t, up, nil)
	get := func(method, path string) string {
		return fmt.Sprintf("%s %s HTTP/1.1\r\nHost: allowed.test:%d\r\nAuthorization: Bearer the-agents-own\r\nContent-Length: 0\r\n\r\n", method, path, up.port)
	}
	tc, err := connectTLS(t, h, "allowed.test", up.port, trust)
	if err != nil {
		t.Fatalf("the client does not take the proxy's leaf: %v", err)
	}
	if p := tc.ConnectionState().NegotiatedProtocol; p != "http/1.1" {
		t.Fatalf("ALPN %q, want http/1.1 alone", p)
	}
	if issuer := tc.ConnectionState().PeerCertificates[0].Issuer.CommonName; issuer != "agentrun egress proxy CA" {
		t.Fatalf("the leaf's issuer %q", issuer)
	}
	out := send(t, tc, get("GET", "/v1/items/7"))
	if !strings.HasPrefix(out, "HTTP/1.1 200") || !strings.HasSuffix(out, "tls hello GET /v1/items/7 ") {
		t.Fatalf("%q", out)
	}
	if got := up.requests(); len(got) != 1 || got[0] != `GET /v1/items/7 ["Bearer s3cret-key-0002"] HTTP/1.1` {
		t.Fatalf("the upstream saw %q", got)
	}
	for _, tc := range []struct{ method, path string }{{"POST", "/v1/items"}, {"GET", "/v2/admin"}, {"GET", "/v1/items/../../v2"}} {
		conn, err := connectTLS(t, h, "allowed.test", up.port, trust)
		if err != nil {
			t.Fatal(err)
		}
		out := send(t, conn, get(tc.method, tc.path))
		want := fmt.Sprintf("403 %s %s is not allowed for allowed.test on this box's network list: ask the operator\n", tc.method, tc.path)
		if !strings.HasPrefix(out, "HTTP/1.1 403") || !strings.HasSuffix(out, want) {
			t.Errorf("%s %s: %q, want %q", tc.method, tc.path, out, want)
		}
		if c := h.lastClass(t); c != Rule {
			t.Errorf("%s %s logged %q", tc.method, tc.path, c)
		}
	}
	if got := up.requests(); len(got) != 1 {
		t.Fatalf("refused requests reached the upstream: %q", got)
	}
	// SOCKS5 to the same host is opened the same way.
	c := h.dial(t)
	if rep := socks5(t, c, socksConnect, 3, []byte("allowed.test"), up.port); rep != repOK {
		t.Fatalf("SOCKS5 reply %d", rep)
	}
	sc := tls.Client(c, &tls.Config{ServerName: "allowed.test", RootCAs: trust})
	if out := send(t, sc, get("HEAD", "/v1/items")); !strings.HasPrefix(out, "HTTP/1.1 200") {
		t.Fatalf("SOCKS5, intercepted: %q", out)
	}
	h.logMu.Lock()
	logged := h.log.String()
	h.logMu.Unlock()
	if strings.Contains(logged, "s3cret") || strings.Contains(logged, "/v1/items") {
		t.Fatalf("the log holds the credential or a path: %s", logged)
	}
}

// A client that does not trust the proxy's CA ends its handshake, and nothing reaches the upstream;
// a request with no origin-form target or another Host is refused in words inside the tunnel.
func TestInterceptRefusesWhatItCannotJudge(t *testing.T) {
	up := startTLSUpstream(t, "allowed.test")
	h, trust := interceptor(t, up, nil)
	if _, err := connectTLS(t, h, "allowed.test", up.port, x509.NewCertPool()); err == nil {
		t.Fatal("a client with no trust in the proxy's CA completed its handshake")
	}
	if c := h.lastClass(t); c != Untrusted {
		t.Fatalf("logged %q, want %q", c, Untrusted)
	}
	for raw, want := range map[string]string{
		"GET https://allowed.test/v1/items HTTP/1.1\r\nHost: allowed.test\r\n\r\n":                      "400 the request to allowed.test is not one this proxy reads",
		fmt.Sprintf("GET /v1/items HTTP/1.1\r\nHost: other.test:%d\r\n\r\n", up.port):                   "403 the request's Host header does not name allowed.test",
		fmt.Sprintf("GET /v1/items HTTP/1.1\r\nHost: allowed.test:%d\r\nUpgrade: h2c\r\n\r\n", up.port): "403 the request to allowed.test asks for an HTTP upgrade",
		"\x00\x01 not http\r\n\r\n": "400 the request to allowed.test is not one this proxy reads",
	} {
		tc, err := connectTLS(t, h, "allowed.test", up.port, trust)
		if err != nil {
			t.Fatal(err)
		}
		if out := send(t, tc, raw); !strings.Contains(out, want) {
			t.Errorf("%q: %q, want %q", raw, out, want)
		}
	}
	up.mu.Lock()
	n := up.conns
	up.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d connections reached the upstream", n)
	}
}

// An upstream that does not verify against the roots (here, roots that lack its CA) is refused
// in words, and sent no request.
func TestInterceptRefusesAnUnverifiedUpstream(t *testing.T) {
	up := startTLSUpstream(t, "allowed.test")
	h, trust := interceptor(t, up, func(c *Config) { c.UpstreamRoots = x509.NewCertPool() })
	tc, err := connectTLS(t, h, "allowed.test", up.port, trust)
	if err != nil {
		t.Fatal(err)
	}
	out := send(t, tc, fmt.Sprintf("GET /v1/items HTTP/1.1\r\nHost: allowed.test:%d\r\n\r\n", up.port))
	if !strings.HasPrefix(out, "HTTP/1.1 502") || !strings.Contains(out, "502 allowed.test did not prove it is allowed.test (tls: failed to verify certificate: x509: certificate signed by unknown authority)") {
		t.Fatalf("%q", out)
	}
	if c := h.lastClass(t); c != Unverified {
		t.Fatalf("logged %q", c)
	}
	if got := up.requests(); len(got) != 0 {
		t.Fatalf("an unverified upstream was sent %q", got)
	}
}

// A host with no rules and no credential is tunnelled as before, its bytes never opened: the
// client meets the upstream's own certificate.
func TestInterceptLeavesOtherHostsTunnelled(t *testing.T) {
	up := startTLSUpstream(t, "www.suffix.test")
	h, _ := interceptor(t, up, nil)
	tc, err := connectTLS(t, h, "www.suffix.test", up.port, up.roots)
	if err != nil {
		t.Fatalf("the upstream's own certificate did not come through: %v", err)
	}
	if issuer := tc.ConnectionState().PeerCertificates[0].Issuer.CommonName; issuer != "test upstream CA" {
		t.Fatalf("issuer %q", issuer)
	}
	out := send(t, tc, fmt.Sprintf("DELETE /anything HTTP/1.1\r\nHost: www.suffix.test\r\nConnection: close\r\nAuthorization: mine\r\n\r\n"))
	if !strings.HasPrefix(out, "HTTP/1.1 200") {
		t.Fatalf("%q", out)
	}
	if got := up.requests(); len(got) != 1 || got[0] != `DELETE /anything ["mine"] HTTP/1.1` {
		t.Fatalf("%q", got)
	}
}

// Whatever a client sends inside an intercepted tunnel, the upstream sees only what the rule
// allows (GET or HEAD under /v1/items), each with the credential alone.
func FuzzInterceptedRequest(f *testing.F) {
	for _, s := range []string{
		"GET /v1/items HTTP/1.1\r\nHost: allowed.test\r\n\r\n",
		"POST /v1/items HTTP/1.1\r\nHost: allowed.test\r\nContent-Length: 2\r\n\r\nhi",
		"GET /v1/items/%2e%2e/admin HTTP/1.1\r\n\r\n",
		"GET /v1/items HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n0\r\n\r\n",
		"GET /v1/items HTTP/1.1\r\nAuthorization: a\r\nauthorization: b\r\n\r\nGET /v2 HTTP/1.1\r\n\r\n",
		"GET /v1/items\r\n\r\n",
	} {
		f.Add(s)
	}
	up := startTLSUpstream(f, "allowed.test")
	// One proxy for every input: its bounds are not what this holds it to.
	h, trust := interceptor(f, up, func(c *Config) { c.MaxOpen, c.MaxTotal = 1<<20, 1<<30 })
	f.Fuzz(func(t *testing.T, raw string) {
		before := len(up.requests())
		tc, err := connectTLS(t, h, "allowed.test", up.port, trust)
		if err != nil {
			t.Fatal(err)
		}
		tc.SetDeadline(time.Now().Add(4 * time.Second))
		send(t, tc, raw)
		for _, seen := range up.requests()[before:] {
			method, rest, _ := strings.Cut(seen, " ")
			path, rest, _ := strings.Cut(rest, " ")
			if (method != "GET" && method != "HEAD") || !(path == "/v1/items" || strings.HasPrefix(path, "/v1/items/") || strings.HasPrefix(path, "/v1/items?")) || !strings.HasPrefix(rest, `["Bearer s3cret-key-0002"]`) {
				t.Fatalf("%q reached the upstream as %q", raw, seen)
			}
		}
	})
}
