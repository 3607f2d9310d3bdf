package proxy

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/netip"
	"time"
)

const socksVersion = 5

// SOCKS5 commands and replies (RFC 1928).
const (
	socksConnect      = 1
	socksBind         = 2
	socksUDPAssociate = 3

	repOK           = 0
	repNotAllowed   = 2
	repUnreachable  = 4
	repCmdNotSupp   = 7
	repAddrNotSupp  = 8
	methodNoAuth    = 0
	methodNoneTaken = 0xff
)

var errSOCKS = errors.New("not a SOCKS5 request")

// SOCKSRequest is one SOCKS5 request: its command and target.
type SOCKSRequest struct {
	Cmd  byte
	Host string // a domain as sent, or an address written out
	Port uint16
}

// ReadGreeting reads a SOCKS5 greeting and says whether it offers no authentication.
func ReadGreeting(r io.Reader) (bool, error) {
	var b [2]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return false, err
	}
	if b[0] != socksVersion || b[1] == 0 {
		return false, errSOCKS
	}
	methods := make([]byte, b[1])
	if _, err := io.ReadFull(r, methods); err != nil {
		return false, err
	}
	for _, m := range methods {
		if m == methodNoAuth {
			return true, nil
		}
	}
	return false, nil
}

// ReadSOCKSRequest reads VER CMD RSV ATYP DST.ADDR DST.PORT. An address type other than
// IPv4, a domain or IPv6 is errSOCKS, and so is a domain of no bytes.
func ReadSOCKSRequest(r io.Reader) (SOCKSRequest, error) {
	var b [4]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return SOCKSRequest{}, err
	}
	if b[0] != socksVersion || b[2] != 0 {
		return SOCKSRequest{}, errSOCKS
	}
	q := SOCKSRequest{Cmd: b[1]}
	switch b[3] {
	case 1:
		var a [4]byte
		if _, err := io.ReadFull(r, a[:]); err != nil {
			return SOCKSRequest{}, err
		}
		q.Host = netip.AddrFrom4(a).String()
	case 3:
		var n [1]byte
		if _, err := io.ReadFull(r, n[:]); err != nil {
			return SOCKSRequest{}, err
		}
		if n[0] == 0 {
			return SOCKSRequest{}, errSOCKS
		}
		name := make([]byte, n[0])
		if _, err := io.ReadFull(r, name); err != nil {
			return SOCKSRequest{}, err
		}
		q.Host = string(name)
	case 4:
		var a [16]byte
		if _, err := io.ReadFull(r, a[:]); err != nil {
			return SOCKSRequest{}, err
		}
		q.Host = netip.AddrFrom16(a).String()
	default:
		return SOCKSRequest{}, errSOCKS
	}
	var p [2]byte
	if _, err := io.ReadFull(r, p[:]); err != nil {
		return SOCKSRequest{}, err
	}
	q.Port = binary.BigEndian.Uint16(p[:])
	return q, nil
}

func socksReply(c net.Conn, rep byte) {
	c.Write([]byte{socksVersion, rep, 0, 1, 0, 0, 0, 0, 0, 0})
}

func (p *Proxy) serveSOCKS(c net.Conn, br *bufio.Reader, admitted bool) {
	noAuth, err := ReadGreeting(br)
	if err != nil {
		p.log("", 0, netip.Addr{}, Malformed)
		return
	}
	if !noAuth {
		c.Write([]byte{socksVersion, methodNoneTaken})
		p.log("", 0, netip.Addr{}, Malformed)
		return
	}
	if _, err := c.Write([]byte{socksVersion, methodNoAuth}); err != nil {
		return
	}
	q, err := ReadSOCKSRequest(br)
	if err != nil {
		p.log("", 0, netip.Addr{}, Malformed)
		socksReply(c, repAddrNotSupp)
		return
	}
	d := decision{host: q.Host, port: q.Port}
	switch {
	case !admitted:
		d.class = Limit
	case q.Cmd != socksConnect: // BIND and UDP ASSOCIATE open a socket the list cannot hold
		d.class = Command
	default:
		d = p.cfg().check(p.ctx, p.List(), q.Host, q.Port, nil)
	}
	if d.class != "" {
		p.log(d.host, d.port, d.at, d.class)
		socksReply(c, socksCode(d.class))
		return
	}
	if p.cfg().intercepted(d.host) {
		socksReply(c, repOK)
		p.intercept(c, br, d)
		return
	}
	up, at, err := p.dial(d)
	if err != nil {
		p.log(d.host, d.port, at, Unreached)
		socksReply(c, socksCode(Unreached))
		return
	}
	defer p.drop(up)
	p.log(d.host, d.port, at, Allowed)
	c.SetReadDeadline(time.Time{})
	socksReply(c, repOK)
	splice(c, br, up)
}
