package proxy

import (
	"context"
	"fmt"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/egress/allow"
)

// judgeProxy is a proxy whose one rule takes GET under /v1/items on allowed.test, counting lookups.
func judgeProxy(t testing.TB, lookups *atomic.Int64) *harness {
	return startProxy(t, func(c *Config) {
		r, err := allow.ParseRule("allowed.test GET /v1/items", c.List)
		if err != nil {
			t.Fatal(err)
		}
		c.Rules = []allow.Rule{r}
		c.MaxOpen, c.MaxTotal = 1<<20, 1<<30
		lookup := c.Lookup
		c.Lookup = func(ctx context.Context, name string) ([]netip.Addr, error) {
			lookups.Add(1)
			return lookup(ctx, name)
		}
	})
}

// A judge-only request is answered with the verdict the request would get, in the same words a
// refusal has, and is never looked up, dialled or sent on: what a rule allows would pass, what it
// refuses is its 403, a name off the list is refused as ever.
func TestJudgeOnlyAnswersTheVerdictAndSendsNothing(t *testing.T) {
	var lookups atomic.Int64
	h := judgeProxy(t, &lookups)
	p := h.up.port
	judge := func(method, host, path string) string {
		return h.roundTrip(t, fmt.Sprintf("%s http://%s:%d%s HTTP/1.1\r\nHost: %s:%d\r\n%s: rules\r\n\r\n", method, host, p, path, host, p, JudgeHeader))
	}
	for _, tc := range []struct{ method, host, path, want string }{
		{"GET", "allowed.test", "/v1/items/7", "200 GET /v1/items/7 would pass for allowed.test: judged by this box's egress proxy, not sent\n"},
		{"POST", "allowed.test", "/v1/items", "403 POST /v1/items is not allowed for allowed.test on this box's network list: ask the operator\n"},
		{"GET", "allowed.test", "/v2", "403 GET /v2 is not allowed for allowed.test on this box's network list: ask the operator\n"},
		{"GET", "off.test", "/", "403 off.test is not on this box's network list: ask the operator\n"},
		// A name with no rules passes what judging reads (the list); its lookup is never made.
		{"DELETE", "rebind.test", "/x", "200 DELETE /x would pass for rebind.test: judged by this box's egress proxy, not sent\n"},
	} {
		out := judge(tc.method, tc.host, tc.path)
		if !strings.HasSuffix(out, "\r\n\r\n"+tc.want) {
			t.Errorf("%s %s%s: %q, want %q", tc.method, tc.host, tc.path, out, tc.want)
		}
	}
	if l := h.logs(t); len(l) != 5 || l[0]["class"] != Judged || l[1]["class"] != Rule || l[3]["class"] != OffList {
		t.Errorf("logged %v", l)
	}
	// A CONNECT marked judge-only is answered, never established.
	if out := h.roundTrip(t, fmt.Sprintf("CONNECT rebind.test:%d HTTP/1.1\r\n%s: 1\r\n\r\n", p, JudgeHeader)); !strings.Contains(out, "200 CONNECT rebind.test:") || strings.Contains(out, "established") {
		t.Errorf("a judge-only CONNECT: %q", out)
	}
	if d, n, a := h.dials.Load(), lookups.Load(), h.up.accepted.Load(); d != 0 || n != 0 || a != 0 {
		t.Fatalf("judging dialled %d times, looked up %d names, reached the upstream %d times", d, n, a)
	}
	// The same request unmarked is sent (the judge is no other path's verdict).
	if out := h.roundTrip(t, fmt.Sprintf("GET http://allowed.test:%d/v1/items HTTP/1.1\r\n\r\n", p)); !strings.HasPrefix(out, "HTTP/1.1 200") || h.up.accepted.Load() != 1 {
		t.Fatalf("unmarked: %q", out)
	}
}

// Inside an intercepted tunnel, a judge-only request is answered there and never sent upstream.
func TestJudgeOnlyInsideAnInterceptedTunnel(t *testing.T) {
	up := startTLSUpstream(t, "allowed.test")
	h, trust := interceptor(t, up, nil)
	for _, tc := range []struct{ method, want string }{
		{"GET", "200 GET /v1/items would pass for allowed.test: judged by this box's egress proxy, not sent\n"},
		{"POST", "403 POST /v1/items is not allowed for allowed.test on this box's network list: ask the operator\n"},
	} {
		tc2, err := connectTLS(t, h, "allowed.test", up.port, trust)
		if err != nil {
			t.Fatal(err)
		}
		out := send(t, tc2, fmt.Sprintf("%s /v1/items HTTP/1.1\r\nHost: allowed.test:%d\r\n%s: rules\r\n\r\n", tc.method, up.port, JudgeHeader))
		if !strings.HasSuffix(out, "\r\n\r\n"+tc.want) {
			t.Errorf("%s: %q, want %q", tc.method, out, tc.want)
		}
	}
	if n := len(up.requests()); n != 0 || h.dials.Load() != 0 {
		t.Fatalf("judge-only requests reached the upstream: %d requests, %d dials", n, h.dials.Load())
	}
}

// Whatever a marked request holds, the proxy never looks it up, dials or sends it anywhere.
func FuzzJudgeOnly(f *testing.F) {
	for _, s := range []string{
		"GET http://allowed.test/v1/items HTTP/1.1\r\nAgentrun-Judge: 1\r\n\r\n",
		"POST http://allowed.test/v1/items HTTP/1.1\r\nagentrun-judge: x\r\nContent-Length: 2\r\n\r\nhi",
		"CONNECT rebind.test:443 HTTP/1.1\r\nAGENTRUN-JUDGE: 1\r\n\r\n",
		"GET http://127.0.2.1/ HTTP/1.1\r\nAgentrun-Judge: 1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	} {
		f.Add(s)
	}
	var lookups atomic.Int64
	h := judgeProxy(f, &lookups)
	f.Fuzz(func(t *testing.T, raw string) {
		head, _, _ := strings.Cut(raw, "\r\n\r\n")
		if !strings.Contains(strings.ToLower(head), "\r\nagentrun-judge:") {
			return
		}
		c := h.dial(t)
		c.SetDeadline(time.Now().Add(2 * time.Second))
		c.Write([]byte(raw))
		buf := make([]byte, 4096)
		for {
			if _, err := c.Read(buf); err != nil {
				break
			}
		}
		if d, n, a := h.dials.Load(), lookups.Load(), h.up.accepted.Load(); d != 0 || n != 0 || a != 0 {
			t.Fatalf("%q: %d dials, %d lookups, %d upstream connections", raw, d, n, a)
		}
	})
}
