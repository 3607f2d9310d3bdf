package probe

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// Stand-in servers on the loopback, each what a probe may meet. Each is closed when its test
// ends; none is ever anything but 127.0.0.1 or localhost.

// target is the loopback address a listener or packet conn holds.
func target(t *testing.T, addr net.Addr, udp bool) Target {
	t.Helper()
	host, port, _ := net.SplitHostPort(addr.String())
	p, _ := strconv.Atoi(port)
	return Target{Host: host, Port: p, UDP: udp}
}

// tcpServer serves each connection with handle, counting them.
func tcpServer(t *testing.T, handle func(net.Conn)) (Target, *atomic.Int32) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int32
	go acceptLoop(l, handle, &n)
	return target(t, l.Addr(), false), &n
}

// acceptLoop serves each connection to l with handle until l closes, counting them.
func acceptLoop(l net.Listener, handle func(net.Conn), n *atomic.Int32) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		n.Add(1)
		go func() { defer c.Close(); handle(c) }()
	}
}

// answerLoop answers each datagram to c with reply(query), unless it is nil, until c closes.
func answerLoop(c net.PacketConn, reply func([]byte) []byte) {
	buf := make([]byte, 2048)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			return
		}
		if out := reply(append([]byte(nil), buf[:n]...)); out != nil {
			c.WriteTo(out, from)
		}
	}
}

// closedPort is a loopback TCP or UDP port nothing listens on.
func closedPort(t *testing.T, udp bool) Target {
	t.Helper()
	if udp {
		c, err := net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		tg := target(t, c.LocalAddr(), true)
		c.Close()
		return tg
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tg := target(t, l.Addr(), false)
	l.Close()
	return tg
}

// udpServer answers each datagram with reply(query).
func udpServer(t *testing.T, reply func([]byte) []byte) Target {
	t.Helper()
	c, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	go answerLoop(c, reply)
	return target(t, c.LocalAddr(), true)
}

// dnsAnswer is the query sent back with the response bit set, as a resolver's answer begins.
func dnsAnswer(q []byte) []byte {
	a := append([]byte(nil), q...)
	if len(a) > 2 {
		a[2] |= 0x80
	}
	return a
}

// readDNSTCP reads one DNS message behind its 2-byte length.
func readDNSTCP(c net.Conn) []byte {
	var n [2]byte
	if _, err := io.ReadFull(c, n[:]); err != nil {
		return nil
	}
	q := make([]byte, binary.BigEndian.Uint16(n[:]))
	if _, err := io.ReadFull(c, q); err != nil {
		return nil
	}
	return q
}

// keyPair is a fresh self-signed P-256 certificate for localhost and its key, in PEM.
func keyPair(t *testing.T) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), DNSNames: []string{"localhost"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	k, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: k})
}

// serverConfig is a TLS server's, with that pair.
func serverConfig(certPEM, keyPEM []byte) (*tls.Config, error) {
	c, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	return &tls.Config{Certificates: []tls.Certificate{c}}, nil
}

// tlsConfig is a server's, with a fresh pair.
func tlsConfig(t *testing.T) *tls.Config {
	t.Helper()
	cfg, err := serverConfig(keyPair(t))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
