package proxy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"agentrun.dev/computerd/internal/egress/allow"
)

// Proxy serves one listener under one Config.
type Proxy struct {
	// conf is Config at New, its rules, credentials and hint then SetSettings'.
	conf atomic.Pointer[Config]
	// list is the one each request is checked against: Config.List at New, then SetList's.
	list   atomic.Pointer[allow.List]
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	open  int
	total int
	conns map[net.Conn]struct{}
	ended bool
	l     net.Listener

	logMu sync.Mutex
}

// New makes a proxy; Serve runs it.
func New(c Config) *Proxy {
	c.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	p := &Proxy{ctx: ctx, cancel: cancel, conns: map[net.Conn]struct{}{}}
	p.conf.Store(&c)
	p.SetList(c.List)
	return p
}

// cfg is the Config every later request is judged under.
func (p *Proxy) cfg() *Config { return p.conf.Load() }

// Settings are what a proxy holds beside its list that may change while it runs.
type Settings struct {
	Rules       []allow.Rule
	Credentials []allow.Credential
	Hint        string // "" is allow.DefaultHint
}

// SetSettings replaces the rules, credentials and hint every later request is judged under, as
// SetList the list: a request already judged keeps its verdict and the headers it was given.
func (p *Proxy) SetSettings(s Settings) {
	c := *p.cfg()
	c.Rules, c.Credentials, c.Hint = s.Rules, s.Credentials, s.Hint
	c.defaults()
	p.conf.Store(&c)
}

// SetList replaces the list every later request is checked against; a request already
// checked keeps its verdict (a connection forwarded goes on). The empty list forwards nothing.
func (p *Proxy) SetList(l allow.List) { p.list.Store(&l) }

// List is the list requests are checked against now.
func (p *Proxy) List() allow.List { return *p.list.Load() }

// Serve accepts until the deadline or Close; every connection it holds is closed by then.
func (p *Proxy) Serve(l net.Listener) {
	if !p.cfg().Deadline.IsZero() {
		t := time.AfterFunc(time.Until(p.cfg().Deadline), p.Close)
		defer t.Stop()
	}
	p.mu.Lock()
	p.l = l
	ended := p.ended
	p.mu.Unlock()
	if ended {
		l.Close()
	}
	for {
		c, err := l.Accept()
		if err != nil {
			if p.ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				p.Close()
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go p.serve(c)
	}
}

// Close stops forwarding: the listener first, then every connection, client or upstream.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.ended = true
	if p.l != nil {
		p.l.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.cancel()
}

// hold keeps a connection for Close; it is false once the proxy has ended.
func (p *Proxy) hold(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) drop(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// admit counts a client connection against the bounds; past them it is served only a
// refusal.
func (p *Proxy) admit() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open >= p.cfg().MaxOpen || p.total >= p.cfg().MaxTotal {
		return false
	}
	p.open++
	p.total++
	return true
}

func (p *Proxy) release() {
	p.mu.Lock()
	p.open--
	p.mu.Unlock()
}

func (p *Proxy) serve(c net.Conn) {
	if !p.hold(c) {
		c.Close()
		return
	}
	defer p.drop(c)
	admitted := p.admit()
	if admitted {
		defer p.release()
	}
	c.SetReadDeadline(time.Now().Add(HeadTimeout))
	br := bufio.NewReaderSize(c, 4096)
	first, err := br.Peek(1)
	if err != nil {
		return
	}
	if first[0] == socksVersion {
		p.serveSOCKS(c, br, admitted)
		return
	}
	p.serveHTTP(c, br, admitted)
}

// logLine is all a log line holds: never a path, a query or a header.
type logLine struct {
	Host    string `json:"host"`
	Port    uint16 `json:"port"`
	Address string `json:"address"`
	Class   string `json:"class"`
}

func (p *Proxy) log(host string, port uint16, a netip.Addr, class string) {
	line := logLine{Host: printable(host, maxHostInLog), Port: port, Class: class}
	if a.IsValid() {
		line.Address = a.String()
	}
	b, _ := json.Marshal(line)
	p.logMu.Lock()
	p.cfg().Log.Write(append(b, '\n'))
	p.logMu.Unlock()
}

// dial opens the first checked address that answers, held for Close. Nothing but an address
// the check passed is ever dialled.
func (p *Proxy) dial(d decision) (net.Conn, netip.Addr, error) {
	var last error = errors.New("no address")
	for _, a := range d.addrs {
		ctx, cancel := context.WithTimeout(p.ctx, DialBound)
		up, err := p.cfg().Dial(ctx, netip.AddrPortFrom(a, d.port))
		cancel()
		if err != nil {
			last = err
			continue
		}
		if !p.hold(up) {
			up.Close()
			return nil, a, net.ErrClosed
		}
		return up, a, nil
	}
	return nil, netip.Addr{}, last
}

// printable is s with every byte outside printable ASCII made '?', cut to n bytes: what a
// client sent, made safe to echo.
func printable(s string, n int) string {
	if len(s) > n {
		s = s[:n]
	}
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e {
			b[i] = '?'
		}
	}
	return string(b)
}
