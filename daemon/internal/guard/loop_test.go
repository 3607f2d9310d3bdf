package guard

import (
	"bytes"
	"encoding/json"
	"os"
	"syscall"
	"testing"
	"time"
)

func TestLineReaderSplitsWhatEachReadGives(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	lr := &lineReader{fd: int(r.Fd())}
	w.Write([]byte("signal TE"))
	lr.fill()
	if l := lr.line(); l != nil {
		t.Fatalf("a part of a line was given as a line: %q", l)
	}
	w.Write([]byte("RM\nstop\nsig"))
	lr.fill()
	for _, want := range []string{"signal TERM", "stop"} {
		if l := lr.line(); string(l) != want {
			t.Fatalf("line %q, want %q", l, want)
		}
	}
	if l := lr.line(); l != nil || lr.eof {
		t.Fatalf("after two lines: %q, eof %v", l, lr.eof)
	}
	w.Close()
	lr.fill()
	if !lr.eof || lr.line() != nil {
		t.Fatal("the end of the pipe was not seen, or the unended line was given")
	}
}

func TestFirstWaitsForAWholeLine(t *testing.T) {
	r, w, _ := os.Pipe()
	defer r.Close()
	go func() {
		w.Write([]byte(`{"argv":`))
		time.Sleep(20 * time.Millisecond)
		w.Write([]byte(`["true"]}` + "\n"))
		w.Close()
	}()
	lr := &lineReader{fd: int(r.Fd())}
	if l, ok := lr.first(); !ok || string(l) != `{"argv":["true"]}` {
		t.Fatalf("first: %q, %v", l, ok)
	}
	if _, ok := lr.first(); ok {
		t.Fatal("a line after the end of the pipe")
	}
}

// Without a pidfd (a kernel before 5.3) the guard's tick finds the program's end.
func TestLoopFindsTheEndWithoutAPidfd(t *testing.T) {
	ctlR, ctlW, _ := os.Pipe()
	defer ctlW.Close()
	repR, repW, _ := os.Pipe()
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", "sleep 0.2; exit 3"}, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{Setpgid: true}})
	if err != nil {
		t.Skip("no /bin/sh:", err)
	}
	g := &guard{spec: Spec{Argv: []string{"sh"}}, pid: pid, pidfd: -1, rep: &reporter{fd: int(repW.Fd())}}
	done := make(chan int)
	go func() { done <- g.loop(&lineReader{fd: int(ctlR.Fd())}) }()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("the loop returned %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the program's end was never found")
	}
	repW.Close()
	var buf bytes.Buffer
	buf.ReadFrom(repR)
	var m report
	if err := json.Unmarshal(bytes.TrimSpace(buf.Bytes()), &m); err != nil || !m.Exited || m.ExitCode == nil || *m.ExitCode != 3 {
		t.Fatalf("report %q, want the exit code 3", buf.String())
	}
}
