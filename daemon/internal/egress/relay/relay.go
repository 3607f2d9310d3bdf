package relay

import (
	"io"
	"net"
	"time"
)

// Addr is where init listens for the computer's programs: port 3128 of its own loopback.
const Addr = "127.0.0.1:3128"

const dialBound = 5 * time.Second

// Env are the variables every program init starts is given: both proxy variables, their
// lowercase forms (curl reads http_proxy alone), and NO_PROXY naming the loopback itself.
func Env(addr string) map[string]string {
	url := "http://" + addr
	return map[string]string{
		"HTTP_PROXY": url, "HTTPS_PROXY": url, "http_proxy": url, "https_proxy": url,
		"NO_PROXY": "localhost,127.0.0.1,::1",
	}
}

// Answers says whether the proxy accepts a connection on its socket now: a dial, closed at
// once (the proxy counts it against its total and logs nothing).
func Answers(socket string) bool {
	c, err := net.DialTimeout("unix", socket, dialBound)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// Serve carries each connection accepted on l to the socket, until l closes, calling accepted
// first for each. A connection the socket does not take is closed: nothing else is reached.
func Serve(l net.Listener, socket string, accepted func()) {
	for {
		c, err := l.Accept()
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				continue
			}
			return
		}
		accepted()
		go carry(c, socket)
	}
}

func carry(c net.Conn, socket string) {
	defer c.Close()
	up, err := net.DialTimeout("unix", socket, dialBound)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{}, 1)
	go func() {
		io.Copy(up, c)
		up.(*net.UnixConn).CloseWrite()
		done <- struct{}{}
	}()
	io.Copy(c, up)
	if tc, ok := c.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	<-done
}
