package judge

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// A relay that answers as the proxy does: it records each request's bytes (up to the blank line
// that ends its head) and answers a status line, headers and a body ending in "\n".
func listen(t *testing.T, answer func(head string) string) (string, <-chan string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	heads := make(chan string, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			var head []byte
			buf := make([]byte, 1)
			for !bytes.HasSuffix(head, []byte("\r\n\r\n")) {
				if _, err := c.Read(buf); err != nil {
					break
				}
				head = append(head, buf[0])
			}
			heads <- string(head)
			io.WriteString(c, answer(string(head)))
			c.Close()
		}
	}()
	return ln.Addr().String(), heads
}

func reply(status, body string) string {
	return "HTTP/1.1 " + status + "\r\nContent-Type: text/plain; charset=us-ascii\r\nConnection: close\r\n\r\n" + body
}

func TestRequestsAndVerdicts(t *testing.T) {
	addr, heads := listen(t, func(head string) string {
		if strings.HasPrefix(head, "POST ") {
			return reply("403 Forbidden", "403 POST /v1/items is not allowed for api.example.com by this box's egress proxy\n")
		}
		return reply("200 OK", "200 GET /v1/items would pass for api.example.com: judged by this box's egress proxy, not sent\n")
	})
	var out, errs bytes.Buffer
	code := Main([]string{"--relay", addr, "api.example.com", "GET", "/v1/items", "api.example.com", "POST", "/v1/items"}, &out, &errs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	want := "200 GET /v1/items would pass for api.example.com: judged by this box's egress proxy, not sent\n" +
		"403 POST /v1/items is not allowed for api.example.com by this box's egress proxy\n"
	if out.String() != want {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}
	// The bytes the shell script sent before it: the absolute form, its Host, the judge header.
	for _, want := range []string{
		"GET http://api.example.com/v1/items HTTP/1.1\r\nHost: api.example.com\r\nAgentrun-Judge: rules\r\nConnection: close\r\n\r\n",
		"POST http://api.example.com/v1/items HTTP/1.1\r\nHost: api.example.com\r\nAgentrun-Judge: rules\r\nConnection: close\r\n\r\n",
	} {
		if got := <-heads; got != want {
			t.Fatalf("the relay read %q, want %q", got, want)
		}
	}
}

// A closed port is "unreached"; an answer with no line is an empty line; a body with no final
// "\n" is still its last line; a relay that never answers is "unanswered" at the deadline.
func TestUnreachedEmptyAndUnanswered(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := ln.Addr().String()
	ln.Close()
	p := Probe{"a.example", "GET", "/"}
	if got := Verdict(closed, p, time.Now().Add(5*time.Second)); got != "unreached" {
		t.Fatalf("a closed port: %q", got)
	}
	empty, _ := listen(t, func(string) string { return "" })
	if got := Verdict(empty, p, time.Now().Add(5*time.Second)); got != "" {
		t.Fatalf("no answer: %q", got)
	}
	bare, _ := listen(t, func(string) string { return reply("200 OK", "200 last\n\n") + "tail" })
	if got := Verdict(bare, p, time.Now().Add(5*time.Second)); got != "tail" {
		t.Fatalf("a last line without \\n: %q", got)
	}
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		c, err := silent.Accept()
		if err == nil {
			defer c.Close()
			io.Copy(io.Discard, c)
		}
	}()
	if got := Verdict(silent.Addr().String(), p, time.Now().Add(300*time.Millisecond)); got != "unanswered" {
		t.Fatalf("a relay that never answers: %q", got)
	}
	if got := Verdict(silent.Addr().String(), p, time.Now().Add(-time.Second)); got != "unanswered" {
		t.Fatalf("a deadline already passed: %q", got)
	}
}

func TestRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "0 arguments is not"},
		{[]string{"a.example", "GET"}, "2 arguments is not"},
		{[]string{"--relay"}, "--relay needs an address"},
		{[]string{"--relay", "nowhere", "a.example", "GET", "/"}, `--relay "nowhere" is not host:port`},
		{[]string{"a.example", "GET", "v1"}, `probe 1's path "v1" does not start with /`},
		{[]string{"a.example", "GET", "/", "b.example", "GET", "/x y"}, `probe 2's path "/x y" is empty or holds a space`},
		{[]string{"a.example\r\nX: 1", "GET", "/"}, "probe 1's host"},
		{[]string{"a.example/x", "GET", "/"}, `probe 1's host "a.example/x" is not a host`},
		{[]string{"a.example", "", "/"}, `probe 1's method "" is empty`},
	} {
		var out, errs bytes.Buffer
		if code := Main(c.args, &out, &errs); code != 2 || out.Len() != 0 || !strings.Contains(errs.String(), c.want) || !strings.Contains(errs.String(), "usage: computerd judge") {
			t.Errorf("%q: exit %d, out %q, err %q; want the words %q", c.args, code, out.String(), errs.String(), c.want)
		}
	}
}

// Whatever the argv, a probe that parses is one request whose head is exactly its own three
// lines and the blank one: no field can add a header or a second request.
func FuzzParse(f *testing.F) {
	f.Add("a.example", "GET", "/v1/items")
	f.Add("a.example\r\nX: y", "GET", "/")
	f.Add("--relay", "127.0.0.1:1", "/")
	f.Fuzz(func(t *testing.T, host, method, path string) {
		_, probes, err := Parse([]string{host, method, path})
		if err != nil {
			return
		}
		req := probes[0].Request()
		if strings.Count(req, "\r\n") != 5 || strings.Count(req, "\n") != 5 || !strings.HasSuffix(req, "\r\n\r\n") || strings.ContainsRune(req[:len(req)-4], 0) {
			t.Fatalf("%q, %q, %q made %q", host, method, path, req)
		}
	})
}

// The last line of any answer holds no "\n" and is one of its lines.
func FuzzLastLine(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\n\r\n200 x\n"))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, answer []byte) {
		last := LastLine(answer)
		if strings.Contains(last, "\n") || (last != "" && !bytes.Contains(answer, []byte(last))) || (last == "" && len(bytes.Trim(answer, "\n")) != 0) {
			t.Fatalf("%q: last line %q", answer, last)
		}
	})
}
