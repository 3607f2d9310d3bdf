package allow

import (
	"net/netip"
	"strings"
	"testing"
)

func ruleList(t *testing.T) List {
	l, r := Parse([]string{"api.example.com", "*.docs.example.com", "93.184.215.0/24"}, netip.Prefix{})
	if r != nil {
		t.Fatal(r)
	}
	return l
}

func TestParseRule(t *testing.T) {
	l := ruleList(t)
	for _, tc := range []struct{ arg, words string }{
		{"api.example.com GET,HEAD /v1/items /v1/things/", ""},
		{"*.docs.example.com * /", ""},
		{"other.example.com GET /", `host "other.example.com" is not a name or *.suffix on the list`},
		{"93.184.215.0/24 GET /", "is not a name or *.suffix on the list"},
		{"api.example.com FETCH /", `method "FETCH" is not one of GET, HEAD`},
		{"api.example.com get /", `method "get" is not one of`},
		{"api.example.com GET v1/items", `path "v1/items" does not start with /`},
		{"api.example.com GET /a/../b", "holds a . or .. segment"},
		{"api.example.com GET /a%2fb", "holds ?, #, % or \\"},
		{"api.example.com GET", "is not \"<host> <methods> <path>...\""},
		{"api.example.com  GET /", `method "" is not one of`},
	} {
		r, err := ParseRule(tc.arg, l)
		if tc.words == "" {
			if err != nil || r.Arg() != tc.arg {
				t.Errorf("%q: %v, read back %q", tc.arg, err, r.Arg())
			}
		} else if err == nil || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%q: %v, want %q", tc.arg, err, tc.words)
		}
	}
}

func TestRuleAllows(t *testing.T) {
	r, err := ParseRule("api.example.com GET /v1/items /docs/", ruleList(t))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"/v1/items": true, "/v1/items/": true, "/v1/items/3": true, "/v1/items?x=/../": true, "/docs/x": true,
		"/v1/itemsx": false, "/v1/item": false, "/docs": false, "/v1/items/../admin": false, "/v1/items/%2e%2e/x": false,
		"/v1/items/./x": false, "/v1/items\\..\\x": false, "/": false,
	} {
		if got := r.Allows("GET", path); got != want {
			t.Errorf("GET %s: %v, want %v", path, got, want)
		}
	}
	if r.Allows("POST", "/v1/items") {
		t.Error("POST allowed by a GET rule")
	}
	if !Covers("*.docs.example.com", "a.docs.example.com") || Covers("*.docs.example.com", "docs.example.com") || Covers("api.example.com", "x.api.example.com") {
		t.Error("Covers")
	}
}

func TestCheckCredentials(t *testing.T) {
	l := ruleList(t)
	ok := []Credential{{Host: "api.example.com", Header: "Authorization", Value: "Bearer k"}, {Host: "*.docs.example.com", Header: "X-Api-Key", Value: "k2"}}
	if w := CheckCredentials(ok, l); w != nil {
		t.Fatal(w)
	}
	for _, tc := range []struct {
		c     Credential
		words string
	}{
		{Credential{Host: "api.example.com", Header: "Host", Value: "v"}, `header "Host" is one the proxy sets or ends itself`},
		{Credential{Host: "api.example.com", Header: "content-length", Value: "v"}, "is one the proxy sets"},
		{Credential{Host: "api.example.com", Header: "Proxy-Authorization", Value: "v"}, "is one the proxy sets"},
		{Credential{Host: "api.example.com", Header: "Bad Name", Value: "v"}, "is not a header name"},
		{Credential{Host: "evil.example.com", Header: "X-Key", Value: "v"}, "is not a name or *.suffix on the list"},
		{Credential{Host: "api.example.com", Header: "X-Key", Value: "a\r\nX-Other: b"}, "printable ASCII alone"},
		{Credential{Host: "api.example.com", Header: "X-Key", Value: ""}, "the value is 1 to"},
	} {
		w := CheckCredentials([]Credential{tc.c}, l)
		if len(w) != 1 || !strings.Contains(w[0], tc.words) || strings.Contains(w[0], "a\r\n") {
			t.Errorf("%+v: %v, want %q", tc.c, w, tc.words)
		}
	}
	if w := CheckCredentials(append(ok, ok[0]), l); len(w) != 1 || !strings.Contains(w[0], "a second Authorization") {
		t.Errorf("a second credential of one header: %v", w)
	}
}

// FuzzParseRule: whatever the argv holds, a rule read is one that reads back to itself, names
// a listed host, and allows no path with a dot segment or an escape.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"api.example.com GET,HEAD /v1/items", "*.docs.example.com * /", "api.example.com GET /a/../b", "api.example.com  GET /", "x"} {
		f.Add(s, "/v1/items/../x")
	}
	l, _ := Parse([]string{"api.example.com", "*.docs.example.com"}, netip.Prefix{})
	f.Fuzz(func(t *testing.T, s, path string) {
		r, err := ParseRule(s, l)
		if err != nil {
			return
		}
		if r.Arg() != s {
			t.Fatalf("%q reads back as %q", s, r.Arg())
		}
		if ListedHost(r.Host, l) != nil {
			t.Fatalf("%q names an unlisted host", s)
		}
		for _, m := range Methods {
			if r.Allows(m, path) {
				p, _, _ := strings.Cut(path, "?")
				if dotSegment(p) || strings.ContainsAny(p, "%\\#") || !strings.HasPrefix(p, "/") {
					t.Fatalf("%q allows %s %q", s, m, path)
				}
			}
		}
	})
}
