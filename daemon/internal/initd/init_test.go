package initd

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/nocgo"
	"agentrun.dev/computerd/internal/ptree"
	"agentrun.dev/computerd/internal/rpctest"
)

type initProc struct {
	cmd    *exec.Cmd
	socket string
	home   string
	stderr *bytes.Buffer
	done   chan struct{}
}

func iso(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// startInit runs the test binary as `computerd init` with its socket in a fresh directory.
func startInit(t *testing.T, socket string, args ...string) *initProc {
	t.Helper()
	return startInitBefore(t, socket, nil, args...)
}

// startInitBefore is startInit with before run on the command just before it starts.
func startInitBefore(t *testing.T, socket string, before func(*initProc), args ...string) *initProc {
	t.Helper()
	if nocgo.Linked() {
		t.Skip("this test binary links cgo (a -race build), so init refuses to start: the drop's tests run without cgo")
	}
	if socket == "" {
		socket = filepath.Join(sockDir(t), "computerd.sock")
	}
	// A home of its own, made 0755 as Docker leaves a workdir: init narrows the home it owns, and
	// the tester's own home is never touched.
	home := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(home, 0o755)
	p := &initProc{socket: socket, home: home, stderr: &bytes.Buffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(os.Args[0], append([]string{"init"}, args...)...)
	p.cmd.Env = append(os.Environ(), "AGENTRUN_COMPUTERD_SOCKET="+socket, "HOME="+home)
	p.cmd.Stderr = p.stderr
	if before != nil {
		before(p)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.done
	})
	return p
}

// exit waits up to d for init to end and returns its exit code.
func (p *initProc) exit(t *testing.T, d time.Duration) int {
	t.Helper()
	select {
	case <-p.done:
		return p.cmd.ProcessState.ExitCode()
	case <-time.After(d):
		t.Fatalf("init still runs after %v; stderr: %s", d, p.stderr)
		return -1
	}
}

// dial waits for init's socket and connects a client to it.
func (p *initProc) dial(t *testing.T) *rpctest.Client {
	t.Helper()
	for start := time.Now(); time.Since(start) < 5*time.Second; time.Sleep(10 * time.Millisecond) {
		c, err := net.Dial("unix", p.socket)
		if err == nil {
			t.Cleanup(func() { c.Close() })
			return rpctest.New(c, c.(*net.UnixConn))
		}
		select {
		case <-p.done:
			t.Fatalf("init exited: %s", p.stderr)
		default:
		}
	}
	t.Fatalf("init's socket never answered; stderr: %s", p.stderr)
	return nil
}

func TestInitRefusesASocketDirectoryThatIsMissingOrShared(t *testing.T) {
	dir := t.TempDir()
	p := startInit(t, filepath.Join(dir, "missing", "computerd.sock"), "--deadline", iso(time.Now().Add(time.Hour)))
	if p.exit(t, 5*time.Second) != 1 || !strings.Contains(p.stderr.String(), "is missing") {
		t.Fatalf("a missing directory: %s", p.stderr)
	}
	shared := filepath.Join(dir, "shared")
	os.Mkdir(shared, 0o755)
	p = startInit(t, filepath.Join(shared, "computerd.sock"), "--deadline", iso(time.Now().Add(time.Hour)))
	if p.exit(t, 5*time.Second) != 1 || !strings.Contains(p.stderr.String(), "is not the daemon's user's alone") {
		t.Fatalf("a directory others can enter: %s", p.stderr)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(t.TempDir(), link)
	p = startInit(t, filepath.Join(link, "computerd.sock"), "--deadline", iso(time.Now().Add(time.Hour)))
	if p.exit(t, 5*time.Second) != 1 || !strings.Contains(p.stderr.String(), "is not a directory") {
		t.Fatalf("a directory that is a link: %s", p.stderr)
	}
}

func TestInitRefusesAMaximumBeforeItsDeadline(t *testing.T) {
	now := time.Now()
	p := startInit(t, "", "--deadline", iso(now.Add(time.Hour)), "--max-deadline", iso(now.Add(time.Minute)))
	if p.exit(t, 5*time.Second) != 1 || !strings.Contains(p.stderr.String(), "before --deadline") {
		t.Fatalf("a maximum before the deadline: %s", p.stderr)
	}
	p = startInit(t, "", "--deadline", "tomorrow")
	if p.exit(t, 5*time.Second) != 1 || !strings.Contains(p.stderr.String(), "not an ISO time") {
		t.Fatalf("a deadline that is no time: %s", p.stderr)
	}
}

func TestInitSocketIs0600AStaleOneReplacedALiveOneRefused(t *testing.T) {
	socket := filepath.Join(sockDir(t), "computerd.sock")
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	p := startInit(t, socket, "--deadline", iso(time.Now().Add(time.Hour)))
	c := p.dial(t)
	c.Must(t, "ping", nil, nil)
	st, err := os.Stat(socket)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
	second := startInit(t, socket, "--deadline", iso(time.Now().Add(time.Hour)))
	if second.exit(t, 5*time.Second) != 1 || !strings.Contains(second.stderr.String(), "another computerd is listening") {
		t.Fatalf("a second init on a live socket: %s", second.stderr)
	}
	c.Must(t, "ping", nil, nil)
}

// At its deadline init refuses new programs, sends TERM to every program before any KILL,
// keeps answering, and exits 0.
func TestInitAtItsDeadlineTermsEveryProgramThenExitsZero(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "got-term")
	dl := time.Now().Add(1500 * time.Millisecond)
	p := startInit(t, "", "--deadline", iso(dl))
	c := p.dial(t)
	_, run := c.Start("exec.run", map[string]any{"argv": []string{"sh", "-c", "trap 'echo TERM > " + mark + "' TERM; while :; do sleep 0.05; done"}})
	for time.Now().Before(dl.Add(300 * time.Millisecond)) {
		time.Sleep(50 * time.Millisecond)
	}
	e := c.Fails(t, "exec.run", map[string]any{"argv": []string{"true"}})
	if e.Data.Kind != "unsupported" || e.Message != "the computer is shutting down" {
		t.Fatalf("exec.run during shutdown: %+v", e)
	}
	c.Must(t, "hello", nil, nil)
	rep := <-run
	var r struct{ Signal *string }
	if rep.Error != nil || rep.Result == nil {
		t.Fatalf("the run under shutdown: %+v", rep)
	}
	if code := p.exit(t, 8*time.Second); code != 0 {
		t.Fatalf("init exited %d: %s", code, p.stderr)
	}
	if b, _ := os.ReadFile(mark); string(b) != "TERM\n" {
		t.Fatalf("the program never got TERM before its KILL (%q)", b)
	}
	_ = r
}

func TestInitNarrowsTheHomeItsUserOwnsTo0700(t *testing.T) {
	p := startInit(t, "", "--deadline", iso(time.Now().Add(time.Hour)))
	p.dial(t).Must(t, "ping", nil, nil)
	st, err := os.Stat(p.home)
	if err != nil {
		t.Fatal(err)
	}
	if mode := st.Mode().Perm(); mode != 0o700 {
		t.Fatalf("init's home reads %04o, not 0700", mode)
	}
}

func TestInitOnSIGTERMExitsZero(t *testing.T) {
	p := startInit(t, "", "--deadline", iso(time.Now().Add(time.Hour)))
	p.dial(t).Must(t, "ping", nil, nil)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.exit(t, 5*time.Second); code != 0 {
		t.Fatalf("init exited %d after SIGTERM: %s", code, p.stderr)
	}
}

func TestDeadlineExtendMovesLaterUpToTheMaximumOnly(t *testing.T) {
	now := time.Now().Truncate(time.Millisecond)
	p := startInit(t, "", "--deadline", iso(now.Add(time.Hour)), "--max-deadline", iso(now.Add(2*time.Hour)))
	c := p.dial(t)
	if e := c.Fails(t, "deadline.extend", map[string]any{"at": iso(now.Add(time.Minute))}); e.Data.Kind != "invalid" {
		t.Fatalf("an earlier time: %+v", e)
	}
	if e := c.Fails(t, "deadline.extend", map[string]any{"at": iso(now.Add(3 * time.Hour))}); e.Data.Kind != "limit" {
		t.Fatalf("past the maximum: %+v", e)
	}
	var r struct{ At string }
	want := now.Add(90 * time.Minute)
	c.Must(t, "deadline.extend", map[string]any{"at": iso(want)}, &r)
	if got, err := time.Parse(time.RFC3339Nano, r.At); err != nil || !got.Equal(want) {
		t.Fatalf("extend answered %q, want %s", r.At, iso(want))
	}
	// A refusal moved nothing: an earlier time than the new deadline is still refused.
	if e := c.Fails(t, "deadline.extend", map[string]any{"at": iso(now.Add(80 * time.Minute))}); e.Data.Kind != "invalid" {
		t.Fatalf("earlier than the moved deadline: %+v", e)
	}

	q := startInit(t, "", "--deadline", iso(now.Add(time.Hour)))
	if e := q.dial(t).Fails(t, "deadline.extend", map[string]any{"at": iso(now.Add(90 * time.Minute))}); e.Data.Kind != "unsupported" {
		t.Fatalf("without --max-deadline: %+v", e)
	}
}

// A program can kill its own guard; init's sweep then ends the orphan and all under it.
func TestInitSweepsTheOrphansOfAKilledGuard(t *testing.T) {
	p := startInit(t, "", "--deadline", iso(time.Now().Add(time.Hour)))
	c := p.dial(t)
	m := "777.4242"
	var r struct {
		Signal *string `json:"signal"`
	}
	c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", "sleep " + m + " & kill -9 $PPID; wait"}}, &r)
	if r.Signal == nil || *r.Signal != "KILL" {
		t.Fatalf("a run whose guard was killed reported %+v, want the guard's end (KILL)", r)
	}
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		if !rpctest.Running("sleep\x00" + m) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the orphan of a killed guard still runs")
}

// Init starts the first exec.run's guard ahead, as it starts serving: the first run's program
// is the child of a guard that waited before the run was asked for.
func TestInitStartsTheFirstRunsGuardAhead(t *testing.T) {
	p := startInit(t, "", "--deadline", iso(time.Now().Add(time.Hour)))
	c := p.dial(t)
	var ahead []ptree.Stat
	for deadline := time.Now().Add(3 * time.Second); len(ahead) == 0 && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		ahead = ptree.Children(ptree.All(), p.cmd.Process.Pid)
	}
	if len(ahead) != 1 {
		t.Fatalf("init's children before any run: %+v, want the one guard it starts ahead", ahead)
	}
	var r struct {
		Stdout []byte `json:"stdout"`
	}
	c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", "echo $PPID"}}, &r)
	if got := strings.TrimSpace(string(r.Stdout)); got != strconv.Itoa(ahead[0].Pid) {
		t.Fatalf("the first run's guard is %s, not %d, the one started ahead", got, ahead[0].Pid)
	}
}

func TestBridgeWithNoDaemonSaysSoAndExitsOne(t *testing.T) {
	cmd := exec.Command(os.Args[0], "stdio")
	cmd.Env = append(os.Environ(), "AGENTRUN_COMPUTERD_SOCKET="+filepath.Join(t.TempDir(), "none.sock"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(stderr.String(), "no daemon answers") || time.Since(start) < 2900*time.Millisecond {
		t.Fatalf("stdio with no daemon: %v after %v, stderr %q", err, time.Since(start), stderr.String())
	}
}

func TestBridgeWaitsForAnInitThatJustStarted(t *testing.T) {
	socket := filepath.Join(sockDir(t), "computerd.sock")
	cmd := exec.Command(os.Args[0], "stdio")
	cmd.Env = append(os.Environ(), "AGENTRUN_COMPUTERD_SOCKET="+socket)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(800 * time.Millisecond)
	startInit(t, socket, "--deadline", iso(time.Now().Add(time.Hour)))
	if err := cmd.Wait(); err != nil {
		t.Fatalf("stdio: %v", err)
	}
	if strings.TrimSpace(out.String()) != `{"jsonrpc":"2.0","id":1,"result":{}}` {
		t.Fatalf("stdio relayed %q", out.String())
	}
}

// sockDir is a socket directory as a provider gives it: the user's alone, mode 0700.
func sockDir(t *testing.T) string {
	d := t.TempDir()
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	return d
}

// A guard ends its program when its control pipe from the daemon closes: no program outlives
// the daemon, even one killed outright.
func TestNoProgramOutlivesAKilledDaemon(t *testing.T) {
	p := startInit(t, "", "--deadline", iso(time.Now().Add(time.Hour)))
	c := p.dial(t)
	m := "778.1234"
	c.Start("exec.run", map[string]any{"argv": []string{"sleep", m}})
	deadline := time.Now().Add(3 * time.Second)
	for !rpctest.Running("sleep\x00"+m) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	deadline = time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if !rpctest.Running("sleep\x00" + m) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the program outlived its daemon")
}
