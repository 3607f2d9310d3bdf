package initd

import (
	"io"
	"strings"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/rpctest"
)

// stdioClient is init's stdin and stdout as a client, as a container's attach gives them.
func stdioClient(t *testing.T, p *initProc) (*rpctest.Client, io.WriteCloser) {
	t.Helper()
	in, err := p.cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	return rpctest.New(out, in), in
}

// startInitWithPipes is startInit with its stdin and stdout piped, set before it starts.
func startInitWithPipes(t *testing.T, args ...string) (*initProc, *rpctest.Client, io.WriteCloser) {
	t.Helper()
	var c *rpctest.Client
	var in io.WriteCloser
	p := startInitBefore(t, "", func(p *initProc) { c, in = stdioClient(t, p) }, args...)
	return p, c, in
}

func TestParseArgsTakesStdio(t *testing.T) {
	dl := iso(time.Now().Add(time.Hour))
	o, err := ParseArgs([]string{"--deadline", dl, "--stdio"})
	if err != nil || !o.Stdio {
		t.Fatalf("--stdio: %+v, %v", o, err)
	}
	if o, _ := ParseArgs([]string{"--deadline", dl}); o.Stdio {
		t.Fatal("no --stdio read as --stdio")
	}
}

// With --stdio init answers a client on its own stdin and stdout, with the one process table the
// socket's clients share; the end of stdin ends that client alone.
func TestInitServesItsFirstClientOverItsOwnStdio(t *testing.T) {
	p, c, in := startInitWithPipes(t, "--deadline", iso(time.Now().Add(time.Hour)), "--stdio")
	var hello struct{ Version string }
	c.Must(t, "hello", map[string]any{"client": "stdio-test"}, &hello)
	if hello.Version == "" {
		t.Fatalf("hello over stdio: %+v", hello)
	}
	var started struct{ Pid int }
	c.Must(t, "process.start", map[string]any{"argv": []string{"sleep", "779.5151"}}, &started)

	second := p.dial(t)
	var listed struct {
		Processes []struct{ Pid int }
	}
	second.Must(t, "process.list", nil, &listed)
	if len(listed.Processes) != 1 || listed.Processes[0].Pid != started.Pid {
		t.Fatalf("the socket's client sees %+v, not the process the stdio client started (%d)", listed, started.Pid)
	}

	in.Close()
	time.Sleep(200 * time.Millisecond)
	second.Must(t, "ping", nil, nil)
	select {
	case <-p.done:
		t.Fatalf("init ended with its stdio client: %s", p.stderr)
	default:
	}
}

// Without --stdio init reads nothing of its stdin: a request there gets no answer.
func TestInitWithoutStdioLeavesItsStdinUnread(t *testing.T) {
	p, _, in := startInitWithPipes(t, "--deadline", iso(time.Now().Add(time.Hour)))
	p.dial(t).Must(t, "ping", nil, nil)
	answered := make(chan struct{})
	go func() {
		// A pipe's buffer takes one small request whether or not anyone reads it; this many do not fit.
		line := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n"
		in.Write([]byte(strings.Repeat(line, 4096)))
		close(answered)
	}()
	select {
	case <-answered:
		t.Fatal("init read 160 KiB of requests from its stdin without --stdio")
	case <-time.After(500 * time.Millisecond):
	}
}
