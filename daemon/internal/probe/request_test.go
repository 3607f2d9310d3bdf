package probe

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// Each target gets its request by port: 443 a ClientHello, 53 a DNS query behind its length,
// any UDP target a DNS query, anything else HEAD /.
func TestRequestByPort(t *testing.T) {
	for _, tc := range []struct {
		t    Target
		want kind
	}{
		{Target{Host: "1.1.1.1", Port: 443}, askTLS},
		{Target{Host: "1.1.1.1", Port: 53}, askDNSTCP},
		{Target{Host: "1.1.1.1", Port: 53, UDP: true}, askDNSUDP},
		{Target{Host: "1.1.1.1", Port: 443, UDP: true}, askDNSUDP},
		{Target{Host: "1.1.1.1", Port: 80}, askHTTP},
		{Target{Host: "127.0.0.1", Port: 2280}, askHTTP},
	} {
		if got := kindOf(tc.t); got != tc.want {
			t.Errorf("%s: kind %d, want %d", tc.t, got, tc.want)
		}
	}
	if got, _ := request(askHTTP, Target{Host: "2606:4700:4700::1111", Port: 80}); string(got) != "HEAD / HTTP/1.0\r\nHost: [2606:4700:4700::1111]\r\n\r\n" {
		t.Errorf("HEAD to an IPv6 literal: %q", got)
	}
	q, id := request(askDNSTCP, Target{Host: "1.1.1.1", Port: 53})
	if int(binary.BigEndian.Uint16(q)) != len(q)-2 || binary.BigEndian.Uint16(q[2:]) != id || !bytes.Equal(q[4:], dnsQuery(id)[2:]) {
		t.Errorf("DNS over TCP: %x (id %d)", q, id)
	}
}

func TestClientHelloIsTLS12WithARandomNonce(t *testing.T) {
	a, _ := request(askTLS, Target{Host: "1.1.1.1", Port: 443})
	b, _ := request(askTLS, Target{Host: "1.1.1.1", Port: 443})
	if a[0] != 0x16 || int(binary.BigEndian.Uint16(a[3:])) != len(a)-5 || a[5] != 1 || a[9] != 3 || a[10] != 3 {
		t.Fatalf("not a TLS 1.2 ClientHello record: %x", a[:12])
	}
	if bytes.Equal(a[11:43], b[11:43]) {
		t.Error("two hellos carry the same random")
	}
	if bytes.Contains(a, []byte("1.1.1.1")) {
		t.Error("an IP literal went out as a server name")
	}
	named, _ := request(askTLS, Target{Host: "example.com", Port: 443})
	if !bytes.Contains(named, append([]byte{0, 0x0b, 'e'}, "xample.com"...)) {
		t.Error("a name went out without SNI")
	}
}
