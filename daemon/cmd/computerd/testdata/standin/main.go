// Standin plays, in the isolation tests' containers, a vendor's agent and the programs that try
// to reach it:
//
//	standin agent <log>      listen as root on :2280 and :49983 (every address, the loopback
//	                         among them) and on the abstract unix socket @agentrun-standin-agent,
//	                         answer anything, and log each connection; <log>.ready once listening
//	standin hold <uid>       become uid and sleep: a process holding the programs' uid
//	standin dial-abstract    connect to @agentrun-standin-agent
//	standin vsock            socket(AF_VSOCK, SOCK_STREAM, 0)
//	standin io_uring         io_uring_setup(1, &params)
//	standin x32              getpid through the x32 table (amd64)
//
// Each call prints one word: ok, or the errno's name.
package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"
)

const abstract = "@agentrun-standin-agent"

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	switch os.Args[1] {
	case "agent":
		agent(os.Args[2])
	case "hold":
		uid, _ := strconv.Atoi(os.Args[2])
		if err := syscall.Setresgid(uid, uid, uid); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		if err := syscall.Setresuid(uid, uid, uid); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		time.Sleep(time.Hour)
	case "dial-abstract":
		c, err := net.Dial("unix", abstract)
		if err == nil {
			c.Close()
		}
		fmt.Println(word(err))
	case "vsock":
		fd, _, e := syscall.RawSyscall(syscall.SYS_SOCKET, 40, syscall.SOCK_STREAM, 0)
		if e == 0 {
			syscall.Close(int(fd))
		}
		fmt.Println(word(e))
	case "io_uring":
		var params [120]byte
		fd, _, e := syscall.RawSyscall(425, 1, uintptr(unsafe.Pointer(&params)), 0)
		if e == 0 {
			syscall.Close(int(fd))
		}
		fmt.Println(word(e))
	case "x32":
		_, _, e := syscall.RawSyscall(0x40000000|39, 0, 0, 0)
		fmt.Println(word(e))
	default:
		os.Exit(2)
	}
}

func word(err error) string {
	var e syscall.Errno
	if err == nil || (errors.As(err, &e) && e == 0) {
		return "ok"
	}
	if !errors.As(err, &e) {
		return err.Error()
	}
	names := map[syscall.Errno]string{syscall.EPERM: "EPERM", syscall.ENOSYS: "ENOSYS", syscall.ECONNREFUSED: "ECONNREFUSED",
		syscall.EAFNOSUPPORT: "EAFNOSUPPORT", syscall.EACCES: "EACCES", syscall.ENOENT: "ENOENT", syscall.EINVAL: "EINVAL"}
	if n, ok := names[e]; ok {
		return n
	}
	return fmt.Sprintf("errno %d", int(e))
}

func agent(log string) {
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var mu sync.Mutex
	serve := func(l net.Listener) {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			fmt.Fprintf(f, "%s %s from %s\n", l.Addr().Network(), l.Addr(), c.RemoteAddr())
			mu.Unlock()
			c.Write([]byte("HTTP/1.0 200 OK\r\n\r\nroot, at your service\n"))
			c.Close()
		}
	}
	for _, a := range [][2]string{{"tcp", ":2280"}, {"tcp", ":49983"}, {"unix", abstract}} {
		l, err := net.Listen(a[0], a[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		go serve(l)
	}
	os.WriteFile(log+".ready", nil, 0o600)
	select {}
}
