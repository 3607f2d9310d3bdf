package relay

import (
	"io"
	"net"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// A connection to the relay reaches the socket byte for byte, both ways, and each connection
// is its own on the socket.
func TestRelayCarriesEachConnectionToTheSocket(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "egress.sock")
	ul, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			go func() { io.Copy(c, c); c.Close() }() // an echo
		}
	}()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var called atomic.Int32
	go Serve(l, socket, func() { called.Add(1) })
	for i := 0; i < 2; i++ {
		c, err := net.Dial("tcp", l.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "hello")
		c.(*net.TCPConn).CloseWrite()
		b, _ := io.ReadAll(c)
		c.Close()
		if string(b) != "hello" {
			t.Fatalf("echoed %q", b)
		}
	}
	if len(accepted) != 2 || called.Load() != 2 {
		t.Fatalf("%d connections on the socket, accepted called %d times", len(accepted), called.Load())
	}
}

// With no proxy on the socket, a connection reaches nothing and is closed.
func TestWithNoProxyAConnectionIsClosed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go Serve(l, filepath.Join(t.TempDir(), "none.sock"), func() {})
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("read %d, %v", n, err)
	}
}

func TestEnv(t *testing.T) {
	e := Env(Addr)
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		if e[k] != "http://127.0.0.1:3128" {
			t.Errorf("%s=%s", k, e[k])
		}
	}
	if e["NO_PROXY"] != "localhost,127.0.0.1,::1" || len(e) != 5 {
		t.Errorf("%v", e)
	}
}
