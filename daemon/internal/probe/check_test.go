package probe

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/binary"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// quick bounds keep the silent cases short; the outcomes are the same as under ConnectBounds.
var quick = Bounds{Connect: 2 * time.Second, Answer: 400 * time.Millisecond, Read: 4096}

func checkAs(t *testing.T, tg Target, k kind) Result {
	t.Helper()
	return check(context.Background(), tg, quick, k)
}

func expect(t *testing.T, r Result, outcome, detail string, bytes int) {
	t.Helper()
	if r.Outcome != outcome || !strings.Contains(r.Detail, detail) || (bytes >= 0 && r.Bytes != bytes) {
		t.Errorf("%s: %s, %d bytes, %q; want %s with %q (%d bytes)", r.Target, r.Outcome, r.Bytes, r.Detail, outcome, detail, bytes)
	}
}

func TestTLSServerAnswersTheClientHello(t *testing.T) {
	cfg := tlsConfig(t)
	names := make(chan string, 2)
	cfg.GetConfigForClient = func(h *tls.ClientHelloInfo) (*tls.Config, error) { names <- h.ServerName; return nil, nil }
	tg, _ := tcpServer(t, func(c net.Conn) { tls.Server(c, cfg).Handshake() })
	expect(t, checkAs(t, tg, askTLS), Answered, "a TLS ServerHello", -1)
	if sni := <-names; sni != "" {
		t.Errorf("an IP literal went out as the server name %q", sni)
	}
	// A name is named (SNI); localhost resolves from the hosts file, to this machine.
	tg.Host = "localhost"
	expect(t, checkAs(t, tg, askTLS), Answered, "a TLS ServerHello", -1)
	if sni := <-names; sni != "localhost" {
		t.Errorf("the server read the name %q, want localhost", sni)
	}
}

func TestTLSServerThatRefusesTheHelloStillAnswers(t *testing.T) {
	cfg := tlsConfig(t)
	cfg.MinVersion = tls.VersionTLS13 // the hello is TLS 1.2: the server says so in an alert
	tg, _ := tcpServer(t, func(c net.Conn) { tls.Server(c, cfg).Handshake() })
	expect(t, checkAs(t, tg, askTLS), Answered, "a TLS alert", 7)
}

func TestHTTPServerAnswersHEAD(t *testing.T) {
	var got string
	tg, _ := tcpServer(t, func(c net.Conn) {
		b := make([]byte, 512)
		n, _ := c.Read(b)
		got = string(b[:n])
		io.WriteString(c, "HTTP/1.0 204 No Content\r\nServer: stand-in\r\n\r\n")
	})
	expect(t, Check(context.Background(), tg, quick), Answered, "an HTTP status line: HTTP/1.0 204 No Content", -1)
	if got != "HEAD / HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n" {
		t.Errorf("the server read %q", got)
	}
}

func TestDNSOverTCPAnswerWithTheQuerysId(t *testing.T) {
	tg, _ := tcpServer(t, func(c net.Conn) {
		q := readDNSTCP(c)
		a := dnsAnswer(q)
		c.Write(append(binary.BigEndian.AppendUint16(nil, uint16(len(a))), a...))
	})
	expect(t, checkAs(t, tg, askDNSTCP), Answered, "a DNS response with the query's id", -1)
}

func TestABannerIsAnAnswer(t *testing.T) {
	tg, _ := tcpServer(t, func(c net.Conn) { io.WriteString(c, "SSH-2.0-stand-in\r\n") })
	expect(t, Check(context.Background(), tg, quick), Answered, `18 bytes of no expected protocol, beginning "SSH-2.0-stand-in"`, 18)
	tg, _ = tcpServer(t, func(c net.Conn) { c.Write([]byte{0, 1, 2, 0xff}) })
	expect(t, Check(context.Background(), tg, quick), Answered, "4 bytes of no expected protocol", 4)
}

func TestAtMost4KiBIsRead(t *testing.T) {
	tg, _ := tcpServer(t, func(c net.Conn) { c.Write(bytes.Repeat([]byte("x"), 10000)); time.Sleep(time.Second) })
	expect(t, Check(context.Background(), tg, quick), Answered, "no expected protocol", 4096)
}

func TestAcceptedWithNothingBack(t *testing.T) {
	hold, _ := tcpServer(t, func(c net.Conn) { time.Sleep(2 * time.Second) })
	expect(t, Check(context.Background(), hold, quick), Accepted, "accepted, and nothing came back within 400ms", 0)
	closed, _ := tcpServer(t, func(c net.Conn) { c.Read(make([]byte, 100)) })
	expect(t, Check(context.Background(), closed, quick), Accepted, "accepted, then closed with nothing sent back", 0)
	reset, _ := tcpServer(t, func(c net.Conn) {
		c.Read(make([]byte, 100))
		c.(*net.TCPConn).SetLinger(0)
	})
	expect(t, Check(context.Background(), reset, quick), Accepted, "accepted, then reset with nothing sent back", 0)
}

func TestRefused(t *testing.T) {
	expect(t, Check(context.Background(), closedPort(t, false), quick), Refused, "no connection: refused (ECONNREFUSED)", 0)
	expect(t, Check(context.Background(), closedPort(t, true), quick), Refused, "port unreachable (ICMP)", 0)
	silent := udpServer(t, func([]byte) []byte { return nil })
	expect(t, Check(context.Background(), silent, quick), Refused, "no datagram came back within 400ms", 0)
}

func TestUDPAnswers(t *testing.T) {
	var q []byte
	dns := udpServer(t, func(b []byte) []byte { q = b; return dnsAnswer(b) })
	expect(t, Check(context.Background(), dns, quick), Answered, "a DNS response with the query's id", -1)
	if len(q) < 12 || !bytes.Contains(q, []byte("\x07example\x03com\x00\x00\x01\x00\x01")) || q[2]&0x01 == 0 {
		t.Errorf("the datagram %x is not a recursive query for example.com's A records", q)
	}
	wrongID := udpServer(t, func(b []byte) []byte { a := dnsAnswer(b); a[0] ^= 0xff; return a })
	expect(t, Check(context.Background(), wrongID, quick), Answered, "a datagram of 29 bytes that is not the DNS response", 29)
	junk := udpServer(t, func([]byte) []byte { return []byte("hi") })
	expect(t, Check(context.Background(), junk, quick), Answered, "a datagram of 2 bytes that is not the DNS response", 2)
}
