package allow

import (
	"net/netip"
	"testing"

	"agentrun.dev/computerd/internal/vectortest"
)

// The rule verdicts the TypeScript check is held to: test/vectors/egress-rules.json, made from
// the Go parser. UPDATE_VECTORS=1 go test ./internal/egress/allow writes it.
const rulesVectorPath = "../../../../test/vectors/egress-rules.json"

var vectorList = []string{"api.example.com", "*.docs.example.com", "93.184.215.0/24"}

var ruleArgs = []string{
	"api.example.com GET,HEAD /v1/items /v1/things/", "*.docs.example.com * /", "api.example.com * /",
	"other.example.com GET /", "docs.example.com GET /", "a.docs.example.com GET /", "93.184.215.0/24 GET /", "API.example.com GET /",
	"api.example.com FETCH /", "api.example.com get /", "api.example.com CONNECT /", "api.example.com TRACE /",
	"api.example.com GET v1/items", "api.example.com GET /a/../b", "api.example.com GET /a/./b", "api.example.com GET /..",
	"api.example.com GET /a%2fb", "api.example.com GET /a?b", "api.example.com GET /a#b", "api.example.com GET /a\\b", "api.example.com GET /é",
	"api.example.com GET",
}

type allowsCase struct {
	Rule    string `json:"rule"`
	Method  string `json:"method"`
	Path    string `json:"path"`
	Allowed bool   `json:"allowed"`
}

var allowsPaths = []string{"/v1/items", "/v1/items/", "/v1/items/3", "/v1/items?x=/../", "/v1/things/a", "/v1/things",
	"/v1/itemsx", "/v1/item", "/", "/v1/items/../admin", "/v1/items/%2e%2e/x", "/v1/items/./x", "/v1/items\\x", "/v1/items#x"}

type rulesVectors struct {
	Comment   string           `json:"comment"`
	List      []string         `json:"list"`
	Methods   []string         `json:"methods"`
	Forbidden []string         `json:"forbiddenHeaders"`
	Rules     []map[string]any `json:"rules"`
	Allows    []allowsCase     `json:"allows"`
	Headers   []map[string]any `json:"headers"`
	Covers    []map[string]any `json:"covers"`
	Bounds    map[string]int   `json:"bounds"`
}

func makeRulesVectors(t *testing.T) rulesVectors {
	l, r := Parse(vectorList, netip.Prefix{})
	if r != nil {
		t.Fatal(r)
	}
	v := rulesVectors{
		Comment:   "Written by daemon/internal/egress/allow (UPDATE_VECTORS=1 go test ./internal/egress/allow): a rule's and a credential header's verdicts, which src/egress/rules.ts is held to by test/unit/egress-rules.test.ts.",
		List:      vectorList,
		Methods:   Methods,
		Forbidden: ForbiddenHeaders,
		Bounds:    map[string]int{"rules": MaxRules, "paths": MaxRulePaths, "path": MaxRulePath, "credentials": MaxCredentials, "value": MaxCredential, "header": MaxHeaderName},
	}
	for _, a := range ruleArgs {
		_, err := ParseRule(a, l)
		v.Rules = append(v.Rules, map[string]any{"arg": a, "ok": err == nil})
	}
	rule, err := ParseRule(ruleArgs[0], l)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []string{"GET", "POST"} {
		for _, p := range allowsPaths {
			v.Allows = append(v.Allows, allowsCase{ruleArgs[0], m, p, rule.Allows(m, p)})
		}
	}
	for _, h := range []string{"Authorization", "X-Api-Key", "host", "Content-Length", "Transfer-Encoding", "Connection", "Proxy-Authorization", "TE", "Upgrade", "Keep-Alive", "Bad Name", "X:Y", ""} {
		v.Headers = append(v.Headers, map[string]any{"header": h, "ok": HeaderProblem(h) == nil})
	}
	for _, c := range [][2]string{{"api.example.com", "api.example.com"}, {"api.example.com", "x.api.example.com"}, {"*.docs.example.com", "a.docs.example.com"}, {"*.docs.example.com", "docs.example.com"}, {"*.docs.example.com", "a.b.docs.example.com"}} {
		v.Covers = append(v.Covers, map[string]any{"rule": c[0], "host": c[1], "covers": Covers(c[0], c[1])})
	}
	return v
}

func TestRulesVectorsAreTheGoVerdicts(t *testing.T) {
	vectortest.Match(t, rulesVectorPath, makeRulesVectors(t), "what the Go parser makes", "go test ./internal/egress/allow")
}
