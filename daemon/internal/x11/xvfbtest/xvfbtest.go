// Package xvfbtest starts a real Xvfb for a test: on a display number the server picks itself
// (-displayfd), so tests run side by side, and stopped when the test ends.
package xvfbtest

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Server is one Xvfb a test started.
type Server struct {
	Display string // ":N"
	Cmd     *exec.Cmd
}

// Start runs Xvfb with a 1280x800x24 screen and the extra arguments. A test that cannot start
// it fails, naming the set-up that installs it: the X client is tested against a real server.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	path, err := exec.LookPath("Xvfb")
	if err != nil {
		t.Fatalf("Xvfb is not on PATH: run npm run setup (it installs Debian's xvfb), or apt-get install xvfb")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, append([]string{"-displayfd", "3", "-screen", "0", "1280x800x24", "-nolisten", "tcp"}, args...)...)
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting Xvfb: %v", err)
	}
	w.Close()
	s := &Server{Cmd: cmd}
	t.Cleanup(func() { s.Stop() })
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(r).ReadString('\n')
		got <- strings.TrimSpace(line)
		r.Close()
	}()
	select {
	case n := <-got:
		if n == "" {
			t.Fatalf("Xvfb ended before it named its display")
		}
		s.Display = ":" + n
	case <-time.After(30 * time.Second):
		t.Fatalf("Xvfb named no display within 30 s")
	}
	return s
}

// Stop ends the server and waits for it.
func (s *Server) Stop() {
	if s.Cmd.Process != nil && s.Cmd.ProcessState == nil {
		s.Cmd.Process.Kill()
		s.Cmd.Wait()
	}
}
