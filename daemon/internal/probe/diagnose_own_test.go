package probe

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"unsafe"

	"agentrun.dev/computerd/internal/nocgo"
)

// --diagnose end to end, at its own addresses, where nothing can leave: a child in a network
// namespace of its own (lo alone) binds 1.1.1.1 and 8.8.8.8 to its loopback and serves them
// itself, then runs the probe. So the real plan, requests, bounds and verdict meet servers
// that answer (TLS, HTTP, DNS) and that accept and say nothing.

const standInsEnv = "PROBE_TEST_STAND_INS"

// addLoopbackAddr puts ip on lo (as the alias lo:n), so the namespace holds it.
func addLoopbackAddr(n int, ip string) error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr struct {
		name [syscall.IFNAMSIZ]byte
		addr syscall.RawSockaddrInet4
		_    [8]byte
	}
	copy(ifr.name[:], fmt.Sprintf("lo:%d", n))
	ifr.addr.Family = syscall.AF_INET
	copy(ifr.addr.Addr[:], net.ParseIP(ip).To4())
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFADDR, uintptr(unsafe.Pointer(&ifr))); e != 0 {
		return fmt.Errorf("adding %s to lo: %v", ip, e)
	}
	return nil
}

// serveStandIns serves, in the child's own namespace: on 1.1.1.1 (answers, when answer) a TLS
// server on 443, HTTP on 80 and DNS on 53/udp; on 8.8.8.8 a TCP accept that says nothing.
func serveStandIns(answer bool, cfg *tls.Config) error {
	listen := func(addr string, handle func(net.Conn)) error {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		go acceptLoop(l, handle, new(atomic.Int32))
		return nil
	}
	silent := func(c net.Conn) { c.Read(make([]byte, 512)) }
	for _, a := range []string{"8.8.8.8:443", "8.8.8.8:80"} {
		if err := listen(a, silent); err != nil {
			return err
		}
	}
	if !answer {
		return nil
	}
	if err := listen("1.1.1.1:443", func(c net.Conn) { tls.Server(c, cfg).Handshake() }); err != nil {
		return err
	}
	if err := listen("1.1.1.1:80", func(c net.Conn) { c.Read(make([]byte, 512)); io.WriteString(c, "HTTP/1.0 200 OK\r\n\r\n") }); err != nil {
		return err
	}
	u, err := net.ListenPacket("udp", "1.1.1.1:53")
	if err != nil {
		return err
	}
	go answerLoop(u, dnsAnswer)
	return nil
}

// standInsChild is the child's whole run: its own namespace, the addresses, the servers, and
// then `computerd probe --diagnose` as the daemon runs it.
func standInsChild(mode string) int {
	if err := addLoopbackAddr(1, "1.1.1.1"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := addLoopbackAddr(2, "8.8.8.8"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg, err := serverConfig([]byte(os.Getenv("PROBE_TEST_CERT")), []byte(os.Getenv("PROBE_TEST_KEY")))
	if err != nil {
		fmt.Fprintln(os.Stderr, "the certificate:", err)
		return 1
	}
	if err := serveStandIns(mode == "egress", cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return Main([]string{"--diagnose"}, os.Stdout, os.Stderr)
}

func TestDiagnoseAtItsOwnAddressesInANamespaceOfItsOwn(t *testing.T) {
	if nocgo.Linked() || os.Getuid() != 0 {
		t.Skip("needs root with CAP_SYS_ADMIN and CAP_NET_ADMIN, in a binary without cgo")
	}
	cert, key := keyPair(t)
	for _, tc := range []struct {
		mode     string
		verdict  string
		answered []string
	}{
		{"egress", "egress", []string{"1.1.1.1:443 a TLS ServerHello", "1.1.1.1:80 an HTTP status line: HTTP/1.0 200 OK", "1.1.1.1:53/udp a DNS response with the query's id"}},
		{"accepted-only", "accepted-only", nil},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"=1", standInsEnv+"="+tc.mode, "PROBE_TEST_CERT="+string(cert), "PROBE_TEST_KEY="+string(key))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				if strings.Contains(stderr.String(), "CAP_") {
					t.Skip(stderr.String())
				}
				t.Fatalf("%v: %s", err, stderr.String())
			}
			var r Report
			if err := json.Unmarshal(out, &r); err != nil {
				t.Fatal(err)
			}
			if r.Verdict != tc.verdict || strings.Join(r.Interfaces, ",") != "lo" || len(r.Results) != 12 {
				t.Fatalf("verdict %q, interfaces %v, %d checks: %s", r.Verdict, r.Interfaces, len(r.Results), out)
			}
			var answered []string
			for _, res := range r.Results {
				switch {
				case res.Outcome == Answered:
					answered = append(answered, res.Target+" "+res.Detail)
				case strings.HasPrefix(res.Target, "8.8.8.8:") && res.Protocol == "tcp":
					if res.Outcome != Accepted || res.Detail != "accepted, then closed with nothing sent back" {
						t.Errorf("%+v, want accepted and closed", res)
					}
				case res.Outcome != Refused:
					t.Errorf("%+v, want refused", res)
				}
			}
			if strings.Join(answered, "; ") != strings.Join(tc.answered, "; ") {
				t.Errorf("answered: %v, want %v", answered, tc.answered)
			}
		})
	}
}
