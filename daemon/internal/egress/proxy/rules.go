package proxy

import (
	"fmt"

	"agentrun.dev/computerd/internal/egress/allow"
)

// Rule is the class of a request a host's rules refuse: its method or path, or a CONNECT or
// SOCKS5 tunnel to a host whose bytes the proxy must read (rules or a credential).
const Rule = "rule"

// request is what rules judge of one request: nil for a SOCKS5 CONNECT.
type request struct {
	method, path string // path: origin-form for plain HTTP, host:port for CONNECT
	connect      bool
}

// opened says whether a host (a name, lower case) has rules or a credential: such a host is
// judged request by request, so it is never tunnelled.
func (c *Config) opened(host string) bool {
	for _, r := range c.Rules {
		if allow.Covers(r.Host, host) {
			return true
		}
	}
	for _, k := range c.Credentials {
		if allow.Covers(k.Host, host) {
			return true
		}
	}
	return false
}

// ruled says whether a listed name's request passes its rules: a host with none passes; a
// tunnel to an opened host passes only to be intercepted, its requests judged inside it; else
// one rule covering the host takes it.
func (c *Config) ruled(host string, q *request) bool {
	if !c.opened(host) {
		return true
	}
	if q == nil || q.connect {
		return c.CA != nil
	}
	covered := false
	for _, r := range c.Rules {
		if allow.Covers(r.Host, host) {
			covered = true
			if r.Allows(q.method, q.path) {
				return true
			}
		}
	}
	return !covered // a credential alone opens a host and refuses nothing
}

// ruleWords are a rule refusal's words: 403 <method> <path> is not allowed for <host>.
func (p *Proxy) ruleWords(d decision) string {
	method, path := "CONNECT", fmt.Sprintf("%s:%d", d.host, d.port)
	if d.req != nil {
		method, path = d.req.method, d.req.path
	}
	return fmt.Sprintf("%s %s is not allowed for %s on this box's network list: %s", printable(method, 32), printable(path, 512), d.host, p.cfg().Hint)
}

// credentialsFor are the headers set on every request to a host, replacing the client's own.
func (c *Config) credentialsFor(host string) []Header {
	var set []Header
	for _, k := range c.Credentials {
		if allow.Covers(k.Host, host) {
			set = append(set, Header{k.Header, k.Value})
		}
	}
	return set
}
