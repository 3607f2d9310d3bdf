package bridge

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// The bridge carries bytes both ways, and grows its stdin and stdout pipes to PipeSize.
func TestRunCarriesBytesThroughGrownPipes(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "d.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Write([]byte("echo " + line))
		c.Close()
	}()
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	inW.Write([]byte("ping\n"))
	inW.Close()
	done := make(chan int)
	go func() { done <- Run(sock, inR, outW, os.Stderr) }()
	got, _ := bufio.NewReader(outR).ReadString('\n')
	if code := <-done; code != 0 || got != "echo ping\n" {
		t.Fatalf("Run gave %d and %q", code, got)
	}
	for _, f := range []*os.File{inR, outW} {
		size, _, e := syscall.Syscall(syscall.SYS_FCNTL, f.Fd(), syscall.F_GETPIPE_SZ, 0)
		if e != 0 || size != PipeSize {
			t.Errorf("pipe size %d (%v), want %d", size, e, PipeSize)
		}
	}
}
