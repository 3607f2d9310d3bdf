package probe

import (
	"encoding/binary"
	"math/rand/v2"
	"strings"
)

// kind is what a target is sent, so that a server that waits for its client speaks.
type kind int

const (
	askHTTP   kind = iota // HEAD / HTTP/1.0: any port but 443 and 53 (the most common client-first protocol)
	askTLS                // a TLS 1.2 ClientHello: 443
	askDNSTCP             // a DNS query behind its 2-byte length: 53 over TCP
	askDNSUDP             // a DNS query in one datagram: any UDP target
)

func kindOf(t Target) kind {
	switch {
	case t.UDP:
		return askDNSUDP
	case t.Port == 443:
		return askTLS
	case t.Port == 53:
		return askDNSTCP
	}
	return askHTTP
}

// request is the bytes k sends to t, and the DNS id in them (0 when none). Nothing of the
// computer's goes out: a random nonce, the target's own host, a query for example.com.
func request(k kind, t Target) ([]byte, uint16) {
	switch k {
	case askTLS:
		var nonce [32]byte
		for i := 0; i < len(nonce); i += 8 {
			binary.BigEndian.PutUint64(nonce[i:], rand.Uint64())
		}
		sni := ""
		if t.isName() {
			sni = t.Host // an IP literal is no server name (RFC 6066, section 3)
		}
		return clientHello(nonce, sni), 0
	case askDNSTCP, askDNSUDP:
		id := uint16(rand.Uint32())
		q := dnsQuery(id)
		if k == askDNSTCP {
			q = append(binary.BigEndian.AppendUint16(nil, uint16(len(q))), q...)
		}
		return q, id
	}
	host := t.Host
	if strings.ContainsRune(host, ':') {
		host = "[" + host + "]"
	}
	return []byte("HEAD / HTTP/1.0\r\nHost: " + host + "\r\n\r\n"), 0
}

// dnsQuery is a recursive query for example.com's A records.
func dnsQuery(id uint16) []byte {
	q := binary.BigEndian.AppendUint16(nil, id)
	q = append(q, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0) // RD; one question
	q = append(q, 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0)
	return append(q, 0, 1, 0, 1) // A, IN
}

// The ClientHello offers what common servers take for TLS 1.2: ECDHE with AES-GCM or ChaCha20,
// then plain RSA key exchange.
var cipherSuites = []uint16{0xc02b, 0xc02f, 0xc02c, 0xc030, 0xcca9, 0xcca8, 0xc009, 0xc013, 0xc00a, 0xc014, 0x009c, 0x009d, 0x002f, 0x0035}

var signatureSchemes = []uint16{0x0403, 0x0804, 0x0401, 0x0503, 0x0805, 0x0501, 0x0603, 0x0806, 0x0601, 0x0201}

// clientHello is a TLS 1.2 ClientHello record, naming sni when it is not empty.
func clientHello(nonce [32]byte, sni string) []byte {
	u16 := binary.BigEndian.AppendUint16
	ext := func(b []byte, typ uint16, body []byte) []byte {
		return append(u16(u16(b, typ), uint16(len(body))), body...)
	}
	var exts []byte
	if sni != "" {
		name := append(u16([]byte{0}, uint16(len(sni))), sni...) // host_name
		exts = ext(exts, 0x0000, append(u16(nil, uint16(len(name))), name...))
	}
	exts = ext(exts, 0x000a, []byte{0, 6, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x18}) // x25519, P-256, P-384
	exts = ext(exts, 0x000b, []byte{1, 0})                                     // uncompressed points
	var sigs []byte
	for _, s := range signatureSchemes {
		sigs = u16(sigs, s)
	}
	exts = ext(exts, 0x000d, append(u16(nil, uint16(len(sigs))), sigs...))
	exts = ext(exts, 0xff01, []byte{0}) // renegotiation_info, empty

	body := []byte{0x03, 0x03}
	body = append(body, nonce[:]...)
	body = append(body, 0) // no session id
	body = u16(body, uint16(2*len(cipherSuites)))
	for _, c := range cipherSuites {
		body = u16(body, c)
	}
	body = append(body, 1, 0) // no compression
	body = u16(body, uint16(len(exts)))
	body = append(body, exts...)

	hs := append([]byte{1, byte(len(body) >> 16), byte(len(body) >> 8), byte(len(body))}, body...)
	return append(u16([]byte{0x16, 0x03, 0x01}, uint16(len(hs))), hs...)
}
