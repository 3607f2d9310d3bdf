package allow

import (
	"fmt"
	"slices"
	"strings"
)

// Rules finer than a host: for a listed name or *.suffix, the methods and path prefixes a
// plain HTTP request may use. A request to a host with rules is judged by them; a host with
// none is forwarded (or tunnelled) as the list alone says. The argv form of one rule is
// "<host> <methods> <path>...": methods "*" for any, else comma-separated; a path prefix each.

// Bounds of the rules one proxy holds.
const (
	MaxRules        = 256
	MaxRulePaths    = 32
	MaxRulePath     = 1024
	MaxCredentials  = 64
	MaxCredential   = 4096
	MaxHeaderName   = 128
	AnyMethod       = "*"
	credentialsNote = "a credential is {host, header, value}"
)

// Methods are the methods a rule may name.
var Methods = []string{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"}

// ForbiddenHeaders are the headers a credential never sets: the proxy frames the request and
// ends every hop-by-hop header itself.
var ForbiddenHeaders = []string{"host", "content-length", "transfer-encoding", "connection", "proxy-connection", "keep-alive", "proxy-authorization", "proxy-authenticate", "te", "trailer", "upgrade"}

// Rule is one host's allowance: Methods nil for any; Paths at least one prefix.
type Rule struct {
	Host    string // as listed: a name, or *.suffix
	Methods []string
	Paths   []string
}

// Credential is a header the proxy sets on every request to Host, replacing the client's.
type Credential struct {
	Host   string `json:"host"`
	Header string `json:"header"`
	Value  string `json:"value"`
}

// Arg is the rule in its argv form.
func (r Rule) Arg() string {
	m := AnyMethod
	if r.Methods != nil {
		m = strings.Join(r.Methods, ",")
	}
	return r.Host + " " + m + " " + strings.Join(r.Paths, " ")
}

// ParseRule reads one rule's argv form and checks its host against the list.
func ParseRule(s string, l List) (Rule, error) {
	f := strings.Split(s, " ")
	if len(f) < 3 {
		return Rule{}, fmt.Errorf("rule %q is not \"<host> <methods> <path>...\"", s)
	}
	r := Rule{Host: f[0], Paths: f[2:]}
	if err := ListedHost(r.Host, l); err != nil {
		return Rule{}, fmt.Errorf("rule %q: %v", s, err)
	}
	if f[1] != AnyMethod {
		r.Methods = strings.Split(f[1], ",")
		for _, m := range r.Methods {
			if err := MethodProblem(m); err != nil {
				return Rule{}, fmt.Errorf("rule %q: %v", s, err)
			}
		}
	}
	if len(r.Paths) > MaxRulePaths {
		return Rule{}, fmt.Errorf("rule %q has %d paths, more than %d", s, len(r.Paths), MaxRulePaths)
	}
	for _, p := range r.Paths {
		if err := PathProblem(p); err != nil {
			return Rule{}, fmt.Errorf("rule %q: %v", s, err)
		}
	}
	return r, nil
}

// ListedHost refuses a rule's or credential's host that is not a name or *.suffix entry of the
// list exactly as listed (normalized): a CIDR's hosts have no name to judge.
func ListedHost(host string, l List) error {
	if name, wild := strings.CutPrefix(host, "*."); wild {
		if slices.Contains(l.Suffixes, name) {
			return nil
		}
	} else if slices.Contains(l.Names, host) {
		return nil
	}
	return fmt.Errorf("host %q is not a name or *.suffix on the list as written (lower case)", host)
}

// MethodProblem refuses a method a rule cannot name.
func MethodProblem(m string) error {
	if slices.Contains(Methods, m) {
		return nil
	}
	return fmt.Errorf("method %q is not one of %s", m, strings.Join(Methods, ", "))
}

// PathProblem refuses a path prefix that is not an absolute path the proxy can compare as sent:
// printable ASCII with no space, query, fragment, backslash, percent-escape or dot segment.
func PathProblem(p string) error {
	switch {
	case !strings.HasPrefix(p, "/"):
		return fmt.Errorf("path %q does not start with /", p)
	case len(p) > MaxRulePath:
		return fmt.Errorf("path is %d bytes, more than %d", len(p), MaxRulePath)
	case strings.ContainsAny(p, "?#%\\"):
		return fmt.Errorf("path %q holds ?, #, %% or \\: give the path alone, as sent, unescaped", p)
	case dotSegment(p):
		return fmt.Errorf("path %q holds a . or .. segment", p)
	}
	for i := 0; i < len(p); i++ {
		if p[i] <= 0x20 || p[i] > 0x7e {
			return fmt.Errorf("path %q is printable ASCII with no space alone", p)
		}
	}
	return nil
}

func dotSegment(p string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == "." || s == ".." {
			return true
		}
	}
	return false
}

// HeaderProblem refuses a credential's header name the proxy must never set.
func HeaderProblem(h string) error {
	if h == "" || len(h) > MaxHeaderName || !headerToken(h) {
		return fmt.Errorf("header %q is not a header name (a token of at most %d bytes)", h, MaxHeaderName)
	}
	if slices.Contains(ForbiddenHeaders, strings.ToLower(h)) {
		return fmt.Errorf("header %q is one the proxy sets or ends itself (%s), never a credential", h, strings.Join(ForbiddenHeaders, ", "))
	}
	return nil
}

// ValueProblem refuses a credential's value that cannot be one header line. Its words never
// hold the value.
func ValueProblem(v string) error {
	if v == "" || len(v) > MaxCredential {
		return fmt.Errorf("the value is 1 to %d bytes", MaxCredential)
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return fmt.Errorf("the value is printable ASCII alone")
		}
	}
	if v[0] == ' ' || v[len(v)-1] == ' ' {
		return fmt.Errorf("the value neither starts nor ends with a space")
	}
	return nil
}

func headerToken(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// CheckCredentials refuses, all together, credentials the proxy cannot set, naming each by its
// place and never by its value.
func CheckCredentials(cs []Credential, l List) []string {
	var out []string
	if len(cs) > MaxCredentials {
		out = append(out, fmt.Sprintf("%d credentials, more than %d", len(cs), MaxCredentials))
	}
	seen := map[string]bool{}
	for i, c := range cs {
		for _, err := range []error{ListedHost(c.Host, l), HeaderProblem(c.Header), ValueProblem(c.Value)} {
			if err != nil {
				out = append(out, fmt.Sprintf("credential %d: %v (%s)", i, err, credentialsNote))
			}
		}
		k := c.Host + "\x00" + strings.ToLower(c.Header)
		if seen[k] {
			out = append(out, fmt.Sprintf("credential %d: a second %s for %s", i, c.Header, c.Host))
		}
		seen[k] = true
	}
	return out
}

// Covers says whether a rule's or credential's host (a name, or *.suffix) takes a request's
// host (lower case, no trailing dot).
func Covers(ruleHost, host string) bool {
	if s, wild := strings.CutPrefix(ruleHost, "*."); wild {
		return strings.HasSuffix(host, "."+s)
	}
	return ruleHost == host
}

// Allows says whether a rule takes a request's method and path (origin-form, its query after ?).
func (r Rule) Allows(method, path string) bool {
	if r.Methods != nil && !slices.Contains(r.Methods, method) {
		return false
	}
	p, _, _ := strings.Cut(path, "?")
	if strings.ContainsAny(p, "%\\#") || dotSegment(p) {
		return false // a form an upstream may read as another path than the one compared
	}
	for _, prefix := range r.Paths {
		if p == prefix || (strings.HasPrefix(p, prefix) && (strings.HasSuffix(prefix, "/") || p[len(prefix)] == '/')) {
			return true
		}
	}
	return false
}
