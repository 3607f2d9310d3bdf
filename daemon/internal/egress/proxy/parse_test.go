package proxy

import (
	"bufio"
	"bytes"
	"strings"
	"testing"
)

func TestReadHead(t *testing.T) {
	h, err := ReadHead(bufio.NewReader(strings.NewReader("GET http://a.org/x HTTP/1.1\r\nHost: a.org\r\nX-Y:  z \r\n\r\nbody")))
	if err != nil || h.Method != "GET" || h.Target != "http://a.org/x" || len(h.Headers) != 2 || h.Values("x-y")[0] != "z" {
		t.Fatalf("%+v %v", h, err)
	}
	for _, bad := range []string{
		"GET  http://a.org/ HTTP/1.1\r\n\r\n", "GET http://a.org/ HTTP/2\r\n\r\n", "GET http://a.org/\r\n\r\n",
		"G(T http://a.org/ HTTP/1.1\r\n\r\n", "GET http://a.org/ HTTP/1.1\r\nX-A: b\r\n c\r\n\r\n",
		"GET http://a.org/ HTTP/1.1\r\nX A: b\r\n\r\n", "GET http://a.org/ HTTP/1.1\r\nX-A\r\n\r\n",
		"GET http://a.org/ HTTP/1.1\r\nX-A: b\rc\r\n\r\n", "GET http://a.org/ HTTP/1.1\r\nX-A: \x00\r\n\r\n",
		"GET http://a.org/ HTTP/1.1\r\nX-A: " + strings.Repeat("b", MaxHead) + "\r\n\r\n",
		"GET http://a.org/ HTTP/1.1\r\n" + strings.Repeat("X-A: b\r\n", maxHeaders+1) + "\r\n",
		"GET http://a.org/ HTTP/1.1\r\nHost: a.org\r\n",
	} {
		if h, err := ReadHead(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("%q: read as %+v", bad, h)
		}
	}
}

func TestTargets(t *testing.T) {
	for in, want := range map[string]struct {
		host string
		port uint16
		path string
	}{
		"http://a.org/x?y":      {"a.org", 80, "/x?y"},
		"http://a.org":          {"a.org", 80, "/"},
		"http://a.org?q":        {"a.org", 80, "/?q"},
		"HTTP://a.org:8080/x":   {"a.org", 8080, "/x"},
		"http://[::1]:443/":     {"[::1]", 443, "/"},
		"http://0x7f000001:80/": {"0x7f000001", 80, "/"},
	} {
		host, port, path, ok := AbsoluteTarget(in)
		if !ok || host != want.host || port != want.port || path != want.path {
			t.Errorf("%s: %s %d %s %v", in, host, port, path, ok)
		}
	}
	for _, bad := range []string{"/x", "https://a.org/", "http://", "http://a.org:/", "http://a.org:0/", "http://a.org:65536/", "http://a.org:+80/", "http://u@a.org/", "http://a.org%2f@b/", "http://::1/", "http://[::1/"} {
		if host, port, _, ok := AbsoluteTarget(bad); ok {
			t.Errorf("%s: read as %s %d", bad, host, port)
		}
	}
	if _, _, ok := SplitHostPort("a.org", 0); ok {
		t.Error("a CONNECT target with no port was taken")
	}
}

// Whatever a client sends, reading its head never panics, never reads past MaxHead, and a
// head it reads has a token method, a version it speaks and headers with token names.
func FuzzReadHead(f *testing.F) {
	for _, s := range []string{
		"GET http://a.org/x HTTP/1.1\r\nHost: a.org\r\n\r\n", "CONNECT a.org:443 HTTP/1.1\r\n\r\n",
		"GET http://a.org/ HTTP/1.0\nHost: a\n\n", "GET http://a.org/ HTTP/1.1\r\nX-A: b\r\n c\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "\x05\x01\x00",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bufio.NewReader(bytes.NewReader(b))
		h, err := ReadHead(r)
		if err != nil {
			return
		}
		if consumed := len(b) - r.Buffered(); consumed > MaxHead+4096 {
			t.Fatalf("read %d bytes of head", consumed)
		}
		if !token(h.Method) || (h.Proto != "HTTP/1.1" && h.Proto != "HTTP/1.0") || strings.ContainsAny(h.Target, " \r\n") {
			t.Fatalf("%+v", h)
		}
		for _, x := range h.Headers {
			if !token(x.Name) || strings.ContainsAny(x.Value, "\r\n\x00") {
				t.Fatalf("header %+v", x)
			}
		}
		if host, port, path, ok := AbsoluteTarget(h.Target); ok {
			if port == 0 || host == "" || !strings.HasPrefix(path, "/") || strings.ContainsAny(host, "@/?#") {
				t.Fatalf("%q: %q %d %q", h.Target, host, port, path)
			}
		}
	})
}

// A SOCKS5 request's reader never panics and reads only what its fields say.
func FuzzSOCKSRequest(f *testing.F) {
	f.Add([]byte{5, 1, 0, 1, 127, 0, 0, 1, 0, 80})
	f.Add([]byte{5, 1, 0, 3, 8, 'p', 'y', 'p', 'i', '.', 'o', 'r', 'g', 1, 187})
	f.Add([]byte{5, 2, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 80})
	f.Add([]byte{5, 1, 0, 3, 0, 0, 80})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := bytes.NewReader(b)
		q, err := ReadSOCKSRequest(r)
		if err != nil {
			return
		}
		want := 4 + 2
		switch b[3] {
		case 1:
			want += 4
		case 3:
			want += 1 + int(b[4])
			if q.Host != string(b[5:5+int(b[4])]) {
				t.Fatalf("host %q", q.Host)
			}
		case 4:
			want += 16
		}
		if consumed := len(b) - r.Len(); consumed != want {
			t.Fatalf("read %d bytes, the request is %d", consumed, want)
		}
		if _, err := ReadGreeting(bytes.NewReader(b)); err == nil && b[0] != 5 {
			t.Fatal("a greeting of another version")
		}
	})
}

func FuzzChunked(f *testing.F) {
	f.Add([]byte("3\r\nhel\r\n2;x=y\r\nlo\r\n0\r\nT: v\r\n\r\nafter"))
	f.Add([]byte("ffffffffffffffff\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var out bytes.Buffer
		r := bufio.NewReader(bytes.NewReader(b))
		if err := copyChunked(&out, r); err != nil {
			return
		}
		// What went on is the body exactly: it is a prefix of the input, and nothing past it.
		if !bytes.HasPrefix(b, out.Bytes()) {
			t.Fatalf("sent %q of %q", out.Bytes(), b)
		}
	})
}
