package proxy

import (
	"fmt"
	"strings"
	"testing"

	"agentrun.dev/computerd/internal/egress/allow"
)

// A host with rules is judged request by request on plain HTTP, before any lookup or dial; a
// tunnel to it is refused when the proxy holds no CA to open it with; a host with none is as before.
func TestRulesJudgePlainHTTP(t *testing.T) {
	h := startProxy(t, func(c *Config) {
		r1, err := allow.ParseRule("allowed.test GET,HEAD /v1/items /docs/", c.List)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := allow.ParseRule("*.suffix.test POST /v1/comments", c.List)
		if err != nil {
			t.Fatal(err)
		}
		c.Rules = []allow.Rule{r1, r2}
	})
	p := h.up.port
	req := func(method, host, path string) string {
		return fmt.Sprintf("%s http://%s:%d%s HTTP/1.1\r\nHost: %s:%d\r\nContent-Length: 0\r\n\r\n", method, host, p, path, host, p)
	}
	for _, tc := range []struct{ method, host, path string }{
		{"GET", "allowed.test", "/v1/items"},
		{"GET", "allowed.test", "/v1/items/7?page=2"},
		{"HEAD", "allowed.test", "/docs/a/b"},
		{"POST", "www.suffix.test", "/v1/comments"},
		{"DELETE", "rebind.test", "/anything"}, // no rules: judged by the list alone (and refused there for its address)
	} {
		out := h.roundTrip(t, req(tc.method, tc.host, tc.path))
		if tc.host == "rebind.test" {
			if strings.Contains(out, "is not allowed for") {
				t.Errorf("a host with no rules was judged by rules: %q", out)
			}
			continue
		}
		if !strings.HasPrefix(out, "HTTP/1.1 200") {
			t.Errorf("%s %s%s: %q", tc.method, tc.host, tc.path, out)
		}
	}
	reached := h.up.accepted.Load()
	for _, tc := range []struct{ method, host, path string }{
		{"POST", "allowed.test", "/v1/items"},
		{"GET", "allowed.test", "/v1/itemsx"},
		{"GET", "allowed.test", "/v1/items/../../admin"},
		{"GET", "allowed.test", "/v1/items/%2e%2e/admin"},
		{"GET", "allowed.test", "/docs"},
		{"GET", "www.suffix.test", "/v1/comments"},
	} {
		before := len(h.logs(t))
		out := h.roundTrip(t, req(tc.method, tc.host, tc.path))
		want := fmt.Sprintf("403 %s %s is not allowed for %s on this box's network list: ask the operator\n", tc.method, tc.path, tc.host)
		if !strings.HasPrefix(out, "HTTP/1.1 403") || !strings.HasSuffix(out, "\r\n\r\n"+want) {
			t.Errorf("%s %s%s: %q, want %q", tc.method, tc.host, tc.path, out, want)
		}
		if l := h.logs(t); len(l) != before+1 || l[before]["class"] != Rule || strings.Contains(fmt.Sprint(l[before]), tc.path) {
			t.Errorf("logged %v, want one line of class rule with no path", l[before:])
		}
	}
	connect := fmt.Sprintf("CONNECT allowed.test:%d HTTP/1.1\r\n\r\n", p)
	want := fmt.Sprintf("403 CONNECT allowed.test:%d is not allowed for allowed.test on this box's network list: ask the operator\n", p)
	if out := h.roundTrip(t, connect); !strings.HasSuffix(out, want) {
		t.Errorf("CONNECT to a host with rules: %q", out)
	}
	if rep := socks5(t, h.dial(t), socksConnect, 3, []byte("www.suffix.test"), p); rep != repNotAllowed || h.lastClass(t) != Rule {
		t.Errorf("SOCKS5 to a host with rules: reply %d", rep)
	}
	if n := h.up.accepted.Load(); n != reached {
		t.Errorf("%d refused requests reached the upstream", n-reached)
	}
}

// A credential is set on every request to its host, the client's own of that name dropped
// however it is spelled or hidden, and never logged; a host with a credential alone is never
// tunnelled, and every method and path is open.
func TestCredentialsSetOnTheirHost(t *testing.T) {
	const key = "Bearer s3cret-key-0001"
	h := startProxy(t, func(c *Config) {
		c.Credentials = []allow.Credential{{Host: "allowed.test", Header: "Authorization", Value: key}}
	})
	p := h.up.port
	out := h.roundTrip(t, fmt.Sprintf("POST http://allowed.test:%d/v1/items HTTP/1.1\r\nHost: allowed.test:%d\r\nauthorization: mine\r\nConnection: Authorization\r\nContent-Length: 2\r\n\r\nhi", p, p))
	if !strings.HasPrefix(out, "HTTP/1.1 200") || !strings.Contains(out, "saw POST /v1/items hi") {
		t.Fatalf("%q", out)
	}
	got := h.up.lastHead(t).Values("Authorization")
	if len(got) != 1 || got[0] != key {
		t.Fatalf("the upstream saw Authorization %q, want the credential alone", got)
	}
	h.roundTrip(t, fmt.Sprintf("GET http://127.0.2.1:%d/ HTTP/1.1\r\n\r\n", p))
	if got := h.up.lastHead(t).Values("Authorization"); len(got) != 0 {
		t.Fatalf("another host got the credential: %q", got)
	}
	if out := h.roundTrip(t, fmt.Sprintf("CONNECT allowed.test:%d HTTP/1.1\r\n\r\n", p)); !strings.Contains(out, "403 CONNECT allowed.test:") {
		t.Fatalf("a tunnel to a credential's host: %q", out)
	}
	h.logMu.Lock()
	logged := h.log.String()
	h.logMu.Unlock()
	if strings.Contains(logged, "s3cret") {
		t.Fatalf("the log holds the credential: %s", logged)
	}
}

// SetSettings while the proxy runs: the next request is judged by the new rules and hint and given
// the new credential, the old one never again.
func TestSetSettingsTakesEffectAtOnce(t *testing.T) {
	h := startProxy(t, func(c *Config) {
		r, err := allow.ParseRule("allowed.test GET /v1/items", c.List)
		if err != nil {
			t.Fatal(err)
		}
		c.Rules = []allow.Rule{r}
		c.Credentials = []allow.Credential{{Host: "allowed.test", Header: "Authorization", Value: "Bearer old-key"}}
	})
	p := h.up.port
	post := fmt.Sprintf("POST http://allowed.test:%d/v1/items HTTP/1.1\r\nHost: allowed.test:%d\r\nContent-Length: 0\r\n\r\n", p, p)
	if out := h.roundTrip(t, post); !strings.HasSuffix(out, "POST /v1/items is not allowed for allowed.test on this box's network list: ask the operator\n") {
		t.Fatalf("before: %q", out)
	}
	r, err := allow.ParseRule("allowed.test GET,POST /v1/items", h.p.List())
	if err != nil {
		t.Fatal(err)
	}
	h.p.SetSettings(Settings{Rules: []allow.Rule{r}, Credentials: []allow.Credential{{Host: "allowed.test", Header: "Authorization", Value: "Bearer new-key"}}, Hint: "ask again"})
	if out := h.roundTrip(t, post); !strings.HasPrefix(out, "HTTP/1.1 200") {
		t.Fatalf("after: %q", out)
	}
	if got := h.up.lastHead(t).Values("Authorization"); len(got) != 1 || got[0] != "Bearer new-key" {
		t.Fatalf("the upstream saw Authorization %q, want the new key alone", got)
	}
	del := fmt.Sprintf("DELETE http://allowed.test:%d/v1/items HTTP/1.1\r\nHost: allowed.test:%d\r\n\r\n", p, p)
	if out := h.roundTrip(t, del); !strings.HasSuffix(out, "DELETE /v1/items is not allowed for allowed.test on this box's network list: ask again\n") {
		t.Fatalf("the new hint: %q", out)
	}
	// No settings at all: the host is tunnelled again, judged by the list alone, with the default hint.
	h.p.SetSettings(Settings{})
	if out := h.roundTrip(t, del); !strings.HasPrefix(out, "HTTP/1.1 200") {
		t.Fatalf("with no rules: %q", out)
	}
	if got := h.up.lastHead(t).Values("Authorization"); len(got) != 0 {
		t.Fatalf("a credential removed was still set: %q", got)
	}
}
