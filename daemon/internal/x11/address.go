package x11

import (
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Address is where a display answers: a unix socket, or TCP on a loopback address.
type Address struct {
	Network string // "unix" or "tcp"
	Addr    string
	Number  string // the display number, as the Xauthority file names it
}

// ParseDisplay reads DISPLAY (":0", ":0.0", "unix:0", "localhost:1", "127.0.0.1:0", "[::1]:0").
// Any host that is not this computer's loopback is refused before anything is sent to it, so
// the cookie never leaves the computer.
func ParseDisplay(display string) (Address, error) {
	if display == "" {
		return Address{}, fmt.Errorf("DISPLAY is not set: the daemon drives no display")
	}
	colon := strings.LastIndexByte(display, ':')
	if colon < 0 {
		return Address{}, fmt.Errorf("DISPLAY %q is not host:number", display)
	}
	host, rest := display[:colon], display[colon+1:]
	number, _, _ := strings.Cut(rest, ".")
	n, err := strconv.Atoi(number)
	if err != nil || n < 0 || n > 59535 {
		return Address{}, fmt.Errorf("DISPLAY %q has no display number", display)
	}
	switch host {
	case "", "unix":
		return Address{Network: "unix", Addr: "/tmp/.X11-unix/X" + number, Number: number}, nil
	}
	h := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	ip := net.ParseIP(h)
	if h == "localhost" {
		ip = net.IPv4(127, 0, 0, 1)
	}
	if ip == nil || !ip.IsLoopback() {
		return Address{}, fmt.Errorf("DISPLAY %q is not a display in this computer: only the unix socket (:N) or TCP to a loopback address is driven", display)
	}
	return Address{Network: "tcp", Addr: net.JoinHostPort(ip.String(), strconv.Itoa(6000+n)), Number: number}, nil
}
