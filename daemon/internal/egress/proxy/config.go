package proxy

import (
	"context"
	"crypto/x509"
	"io"
	"net"
	"net/netip"
	"time"

	"agentrun.dev/computerd/internal/egress/allow"
	"agentrun.dev/computerd/internal/egress/ca"
)

// Bounds of one proxy.
const (
	MaxOpen      = 64     // connections open at once
	MaxTotal     = 20_000 // connections in all
	HeadTimeout  = 10 * time.Second
	LookupBound  = 5 * time.Second
	DialBound    = 10 * time.Second
	maxHostInLog = 255
)

// Config is one proxy: its list and what it refuses beside the table.
type Config struct {
	List      allow.List
	HostAddrs []netip.Addr // the Docker host's own addresses, refused as this-host
	Hint      string       // the words a refusal adds
	Deadline  time.Time    // it forwards nothing from then on
	// Reachable is the test-only seam: one test network's range, reached as if public.
	Reachable netip.Prefix
	Log       io.Writer // one JSON line per target
	// Rules judge plain HTTP to the hosts they name; Credentials are headers set on requests to
	// theirs. A host either names is never tunnelled (rules.go): with a CA its tunnels are
	// intercepted (intercept.go), without one refused.
	Rules       []allow.Rule
	Credentials []allow.Credential
	CA          *ca.Authority
	// UpstreamRoots verify an intercepted host's own certificate: nil is the system's roots.
	UpstreamRoots *x509.CertPool

	// Seams for tests: the ports a host is reached on (allow.Ports unless set), the bounds,
	// and the lookup and the dial.
	Ports    []uint16
	MaxOpen  int
	MaxTotal int
	Lookup   func(ctx context.Context, name string) ([]netip.Addr, error)
	Dial     func(ctx context.Context, to netip.AddrPort) (net.Conn, error)
}

func (c *Config) defaults() {
	if c.Hint == "" {
		c.Hint = allow.DefaultHint
	}
	if c.Ports == nil {
		c.Ports = allow.Ports
	}
	if c.MaxOpen == 0 {
		c.MaxOpen = MaxOpen
	}
	if c.MaxTotal == 0 {
		c.MaxTotal = MaxTotal
	}
	if c.Lookup == nil {
		c.Lookup = func(ctx context.Context, name string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", name)
		}
	}
	if c.Dial == nil {
		c.Dial = func(ctx context.Context, to netip.AddrPort) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, "tcp", to.String())
		}
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
}
