package guard

import (
	"bytes"
	"encoding/json"
	"os"
	"syscall"
	"testing"
	"time"
)

// socketPair is a control socket: the guard's end and the daemon's.
func socketPair(t testing.TB) (guardEnd, daemonEnd *os.File) {
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	guardEnd, daemonEnd = os.NewFile(uintptr(pair[0]), "guard"), os.NewFile(uintptr(pair[1]), "daemon")
	t.Cleanup(func() { guardEnd.Close(); daemonEnd.Close() })
	return guardEnd, daemonEnd
}

func TestLineReaderSplitsWhatEachReadGives(t *testing.T) {
	r, w := socketPair(t)
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
	r, w := socketPair(t)
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
	ctlR, _ := socketPair(t)
	repR, repW, _ := os.Pipe()
	pid, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", "sleep 0.2; exit 3"}, &syscall.ProcAttr{Sys: &syscall.SysProcAttr{Setpgid: true}})
	if err != nil {
		t.Skip("no /bin/sh:", err)
	}
	g := &guard{spec: Spec{Argv: []string{"sh"}}, pid: pid, pidfd: -1, tty: -1, rep: &reporter{fd: int(repW.Fd())}}
	done := make(chan struct{})
	go func() { g.loop(&lineReader{fd: int(ctlR.Fd())}); close(done) }()
	select {
	case <-done:
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

// The descriptors a spec brings are the ones next gives with it; a command before the spec
// (for a run already over) is dropped.
func TestNextGivesTheSpecWithItsDescriptors(t *testing.T) {
	r, w := socketPair(t)
	null, err := os.Open("/dev/null")
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	w.Write([]byte("stop\nsignal TERM\n"))
	line := []byte(`{"argv":["true"],"env":[]}` + "\n")
	fd := int(null.Fd())
	if err := syscall.Sendmsg(int(w.Fd()), line[:5], syscall.UnixRights(fd, fd, fd), nil, 0); err != nil {
		t.Fatal(err)
	}
	w.Write(line[5:])
	lr := &lineReader{fd: int(r.Fd())}
	spec, fds, ok := lr.next()
	if !ok || string(spec) != `{"argv":["true"],"env":[]}` || len(fds) != 3 {
		t.Fatalf("next: %q with %d descriptors, %v", spec, len(fds), ok)
	}
	for _, got := range fds {
		var st, want syscall.Stat_t
		syscall.Fstat(got, &st)
		syscall.Fstat(fd, &want)
		if st.Ino != want.Ino || st.Dev != want.Dev {
			t.Fatalf("descriptor %d is not /dev/null", got)
		}
		syscall.Close(got)
	}
	w.Close()
	if _, _, ok := lr.next(); ok {
		t.Fatal("a spec after the end of the socket")
	}
}

// FuzzLineReader: whatever the bytes and however the reads split them, the lines given are
// the text's lines, in order, each without its newline, and nothing past the last newline.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("stop\nsignal TERM\n{\"argv\":[\"true\"]}\n"), uint8(3))
	f.Add([]byte("intfg 12\nunended"), uint8(1))
	f.Fuzz(func(t *testing.T, text []byte, cut uint8) {
		r, w := socketPair(t)
		go func() {
			step := int(cut%16) + 1
			for i := 0; i < len(text); i += step {
				w.Write(text[i:min(i+step, len(text))])
			}
			w.Close()
		}()
		lr := &lineReader{fd: int(r.Fd())}
		var got [][]byte
		for {
			l, ok := lr.first()
			if !ok {
				break
			}
			got = append(got, append([]byte{}, l...))
		}
		want := bytes.Split(text, []byte("\n"))
		want = want[:len(want)-1] // what follows the last newline is no line
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d", len(got), len(want))
		}
		for i := range want {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d: %q, want %q", i, got[i], want[i])
			}
		}
	})
}
