package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/netip"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/egress/allow"
)

// The test network: the seam marks 127.0.2.0/24 reachable, as a container test marks its own
// Docker network's range. 127.0.0.1, outside it, stays loopback and is refused.
var (
	testRange = netip.MustParsePrefix("127.0.2.0/24")
	serverIP  = netip.MustParseAddr("127.0.2.1")
	thisHost  = netip.MustParseAddr("127.0.2.9")
)

// upstream is a server the test starts: it counts every connection it accepts and answers
// each request with what it read.
type upstream struct {
	l        net.Listener
	port     uint16
	accepted atomic.Int64
	mu       sync.Mutex
	heads    []Head
	bodies   []string
}

func startUpstream(t testing.TB, ip netip.Addr) *upstream {
	t.Helper()
	l, err := net.Listen("tcp", netip.AddrPortFrom(ip, 0).String())
	if err != nil {
		t.Fatal(err)
	}
	u := &upstream{l: l, port: uint16(l.Addr().(*net.TCPAddr).Port)}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			u.accepted.Add(1)
			go u.serve(c)
		}
	}()
	return u
}

func (u *upstream) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for {
		h, err := ReadHead(br)
		if err != nil {
			return
		}
		var body bytes.Buffer
		if len(h.Values("Transfer-Encoding")) > 0 {
			copyChunked(&body, br)
		} else if cl := h.Values("Content-Length"); len(cl) == 1 {
			n, _ := strconv.Atoi(cl[0])
			io.CopyN(&body, br, int64(n))
		}
		u.mu.Lock()
		u.heads = append(u.heads, h)
		u.bodies = append(u.bodies, body.String())
		u.mu.Unlock()
		switch {
		case h.Target == "/redirect":
			io.WriteString(c, "HTTP/1.1 302 Found\r\nLocation: http://evil.test/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			return
		case strings.HasPrefix(h.Target, "/big/"):
			n, _ := strconv.Atoi(strings.TrimPrefix(h.Target, "/big/"))
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n", n)
			io.CopyN(c, zeros{}, int64(n))
			return
		}
		reply := "saw " + h.Method + " " + h.Target + " " + body.String()
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(reply), reply)
		if h.hasToken("Connection", "close") {
			return
		}
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }

func (u *upstream) lastHead(t *testing.T) Head {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.heads) == 0 {
		t.Fatal("the upstream read no request")
	}
	return u.heads[len(u.heads)-1]
}

// harness is a proxy on a Unix socket, its log, and how many dials it made.
type harness struct {
	p      *Proxy
	socket string
	dials  atomic.Int64
	logMu  sync.Mutex
	log    bytes.Buffer
	up     *upstream
}

type syncWriter struct{ h *harness }

func (w syncWriter) Write(b []byte) (int, error) {
	w.h.logMu.Lock()
	defer w.h.logMu.Unlock()
	return w.h.log.Write(b)
}

// names is the fake lookup: what each name answers.
var names = map[string][]netip.Addr{
	"allowed.test":    {serverIP},
	"www.suffix.test": {serverIP},
	"rebind.test":     {serverIP, netip.MustParseAddr("127.0.0.1")},
	"private.test":    {netip.MustParseAddr("10.1.2.3")},
	"metadata.test":   {netip.MustParseAddr("169.254.169.254")},
	"mapped.test":     {netip.MustParseAddr("::ffff:127.0.0.1")},
	"host.test":       {thisHost},
	"nothing.test":    {},
	"reserved.test":   {netip.MustParseAddr("192.0.2.7")},
}

func startProxy(t testing.TB, tweak func(*Config)) *harness {
	t.Helper()
	h := &harness{up: startUpstream(t, serverIP)}
	list, refusals := allow.Parse([]string{"allowed.test", "*.suffix.test", "rebind.test", "private.test", "metadata.test", "mapped.test", "host.test", "nothing.test", "reserved.test", "gone.test", "127.0.2.0/24"}, testRange)
	if refusals != nil {
		t.Fatal(refusals)
	}
	cfg := Config{
		List: list, HostAddrs: []netip.Addr{thisHost}, Hint: "ask the operator", Deadline: time.Now().Add(time.Minute),
		Reachable: testRange, Log: syncWriter{h}, Ports: []uint16{80, 443, h.up.port},
		Lookup: func(ctx context.Context, name string) ([]netip.Addr, error) {
			a, ok := names[name]
			if !ok {
				return nil, fmt.Errorf("no such name %s", name)
			}
			return a, nil
		},
		Dial: func(ctx context.Context, to netip.AddrPort) (net.Conn, error) {
			h.dials.Add(1)
			var d net.Dialer
			return d.DialContext(ctx, "tcp", to.String())
		},
	}
	if tweak != nil {
		tweak(&cfg)
	}
	h.socket = filepath.Join(t.TempDir(), "egress.sock")
	l, err := net.Listen("unix", h.socket)
	if err != nil {
		t.Fatal(err)
	}
	h.p = New(cfg)
	done := make(chan struct{})
	go func() { h.p.Serve(l); close(done) }()
	t.Cleanup(func() { h.p.Close(); <-done })
	return h
}

func (h *harness) dial(t testing.TB) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", h.socket)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(15 * time.Second))
	t.Cleanup(func() { c.Close() })
	return c
}

// roundTrip sends raw bytes and reads everything until the proxy closes.
func (h *harness) roundTrip(t *testing.T, raw string) string {
	t.Helper()
	c := h.dial(t)
	io.WriteString(c, raw)
	b, _ := io.ReadAll(c)
	return string(b)
}

// logs are the log lines so far, each parsed with every field it holds.
func (h *harness) logs(t *testing.T) []map[string]any {
	t.Helper()
	h.logMu.Lock()
	defer h.logMu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(h.log.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a log line that is not JSON: %q", line)
		}
		out = append(out, m)
	}
	return out
}

// lastClass waits for the log's newest line and returns its class.
func (h *harness) lastClass(t *testing.T) string {
	t.Helper()
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(5 * time.Millisecond) {
		if l := h.logs(t); len(l) > 0 {
			return l[len(l)-1]["class"].(string)
		}
	}
	t.Fatal("no log line")
	return ""
}

// socks5 sends a SOCKS5 greeting and request and returns the reply's code.
func socks5(t *testing.T, c net.Conn, cmd byte, atyp byte, addr []byte, port uint16) byte {
	t.Helper()
	c.Write([]byte{5, 1, 0})
	var g [2]byte
	if _, err := io.ReadFull(c, g[:]); err != nil || g != [2]byte{5, 0} {
		t.Fatalf("greeting: %v %v", g, err)
	}
	req := []byte{5, cmd, 0, atyp}
	if atyp == 3 {
		req = append(req, byte(len(addr)))
	}
	req = append(req, addr...)
	req = append(req, byte(port>>8), byte(port))
	c.Write(req)
	var r [10]byte
	if _, err := io.ReadFull(c, r[:]); err != nil {
		t.Fatalf("reply: %v", err)
	}
	return r[1]
}
