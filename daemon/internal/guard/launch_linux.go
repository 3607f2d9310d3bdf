package guard

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"syscall"

	"agentrun.dev/computerd/internal/ptree"
	"agentrun.dev/computerd/internal/reaper"
	"agentrun.dev/computerd/internal/rpc"
)

// Exe and Args start a guard: this same binary, again, as `computerd guard`. A test binary
// answers the same arguments from its TestMain.
var (
	Exe  = "/proc/self/exe"
	Args = []string{"computerd", "guard"}
)

// Options is one program to start under a guard.
type Options struct {
	Spec
	// Stdin, Stdout, Stderr are the program's; nil is /dev/null. The caller closes its copies.
	Stdin, Stdout, Stderr *os.File
	// Cred, when set, is the user the guard and its program run as.
	Cred *syscall.Credential
}

// Run is a program running under its guard.
type Run struct {
	Pid      int // the program's
	GuardPid int

	ctlMu sync.Mutex
	ctl   *os.File

	exited chan struct{}
	status Status
	notes  chan string
	ended  chan struct{} // the guard itself is gone
}

// Launcher starts guards with one binary and arguments, read once, so a test may point a new
// daemon at another binary without racing the guards of the last.
type Launcher struct {
	Exe  string
	Args []string
}

// Default is the launcher of Exe and Args as they are now.
func Default() Launcher { return Launcher{Exe: Exe, Args: Args} }

// Start starts a guard and its program, and returns once the program runs. When ctx ends
// first, the guard is killed with everything under it and ctx's error returned.
func (l Launcher) Start(ctx context.Context, o Options) (*Run, error) {
	null, err := os.OpenFile("/dev/null", os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	s, err := l.spawn([3]*os.File{orNull(o.Stdin, null), orNull(o.Stdout, null), orNull(o.Stderr, null)}, o.Cred)
	if err != nil {
		return nil, err
	}
	return s.begin(ctx, o.Spec)
}

// spawned is a guard that runs and waits for its spec on the control pipe.
type spawned struct {
	pid      int
	guardEnd <-chan syscall.WaitStatus
	ctl, rep *os.File
}

func (l Launcher) spawn(stdio [3]*os.File, cred *syscall.Credential) (*spawned, error) {
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("the guard's control pipe: %w", err)
	}
	repR, repW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, fmt.Errorf("the guard's report pipe: %w", err)
	}
	files := []*os.File{stdio[0], stdio[1], stdio[2], ctlR, repW}
	pid, guardEnd, err := reaper.Spawn(func() (int, error) {
		// GOMAXPROCS given spares the runtime some start-up work; the guard needs one
		// processor. Its program gets spec.Env alone.
		p, err := os.StartProcess(l.Exe, l.Args, &os.ProcAttr{Env: []string{"GOMAXPROCS=1"}, Files: files, Sys: &syscall.SysProcAttr{Credential: cred}})
		if err != nil {
			return 0, err
		}
		// Its end is taken by the reaper's wait4, not through this handle.
		pid := p.Pid
		p.Release()
		return pid, nil
	})
	// The guard holds its ends now; ours would keep its report pipe from ever ending.
	ctlR.Close()
	repW.Close()
	if err != nil {
		ctlW.Close()
		repR.Close()
		return nil, fmt.Errorf("starting the guard: %w", err)
	}
	return &spawned{pid: pid, guardEnd: guardEnd, ctl: ctlW, rep: repR}, nil
}

// begin hands the guard its spec and waits for the program's start.
func (s *spawned) begin(ctx context.Context, spec Spec) (*Run, error) {
	r := &Run{GuardPid: s.pid, ctl: s.ctl, exited: make(chan struct{}), notes: make(chan string, 1), ended: make(chan struct{})}
	line, _ := json.Marshal(spec)
	s.ctl.Write(append(line, '\n'))
	started := make(chan error, 1)
	go r.read(s.rep, s.guardEnd, started)
	select {
	case err := <-started:
		if err != nil {
			<-r.ended
			return nil, err
		}
		return r, nil
	case <-ctx.Done():
		// The program has not started (its exec may be stalled): end the guard and all under it.
		killTree(s.pid)
		<-r.ended
		return nil, ctx.Err()
	}
}

// Warm is a guard started ahead of its run with the program's stdio pipes made, so exec.run
// takes a guard that already runs and its start is off the run's path.
type Warm struct {
	s *spawned
	// The daemon's ends of the program's stdin, stdout and stderr.
	Stdin          *os.File
	Stdout, Stderr *os.File
}

// SpawnWarm starts a guard that waits for its spec, as the daemon's own user.
func (l Launcher) SpawnWarm() (*Warm, error) {
	var ours, theirs [3]*os.File
	closeAll := func() {
		for _, f := range append(ours[:], theirs[:]...) {
			if f != nil {
				f.Close()
			}
		}
	}
	for i := range 3 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll()
			return nil, err
		}
		if i == 0 {
			theirs[i], ours[i] = r, w
		} else {
			theirs[i], ours[i] = w, r
		}
	}
	s, err := l.spawn(theirs, nil)
	for _, f := range theirs {
		f.Close()
	}
	if err != nil {
		for _, f := range ours {
			f.Close()
		}
		return nil, err
	}
	return &Warm{s: s, Stdin: ours[0], Stdout: ours[1], Stderr: ours[2]}, nil
}

// Begin runs spec on the warm guard; on an error the caller closes the stdio ends.
func (w *Warm) Begin(ctx context.Context, spec Spec) (*Run, error) { return w.s.begin(ctx, spec) }

// Discard ends a warm guard never used: with its control pipe closed before a spec it exits,
// and it is killed in case it is stuck before reading it.
func (w *Warm) Discard() {
	killTree(w.s.pid)
	w.s.ctl.Close()
	w.s.rep.Close()
	w.Stdin.Close()
	w.Stdout.Close()
	w.Stderr.Close()
}

func orNull(f, null *os.File) *os.File {
	if f == nil {
		return null
	}
	return f
}

func (r *Run) read(rep *os.File, guardEnd <-chan syscall.WaitStatus, started chan<- error) {
	defer rep.Close()
	sc := bufio.NewScanner(rep)
	first := true
	for sc.Scan() {
		var m report
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		switch {
		case m.Error != "":
			started <- rpc.Errorf(rpc.Kind(m.Kind), "%s", m.Error)
			first = false
		case m.Started != 0 && first:
			r.Pid = m.Started
			first = false
			started <- nil
		case m.Exited:
			r.status = Status{ExitCode: m.ExitCode, Signal: m.Signal}
			close(r.exited)
		case m.Note != nil:
			select {
			case r.notes <- *m.Note:
			default:
			}
		}
	}
	st := <-guardEnd
	if first {
		if st.Signaled() {
			started <- &KilledEarly{Signal: SignalName(st.Signal())}
		} else {
			started <- fmt.Errorf("the guard ended before its program started (%s)", describe(st))
		}
	}
	select {
	case <-r.exited:
	default:
		// The guard itself was killed: the process reports the guard's end.
		if st.Signaled() {
			r.status = Status{Signal: SignalName(st.Signal())}
		} else {
			code := st.ExitStatus()
			r.status = Status{ExitCode: &code}
		}
		close(r.exited)
	}
	r.ctlMu.Lock()
	r.ctl.Close()
	r.ctlMu.Unlock()
	close(r.ended)
}

// KilledEarly is a guard killed by a signal before it reported its program's start. The
// program may well have started: it runs as the guard's user and can kill its guard at once,
// before the guard's report is written.
type KilledEarly struct{ Signal string }

func (e *KilledEarly) Error() string {
	return fmt.Sprintf("the guard was killed (%s) before it reported its program's start", e.Signal)
}

func describe(st syscall.WaitStatus) string {
	if st.Signaled() {
		return "signal " + SignalName(st.Signal())
	}
	return fmt.Sprintf("exit %d", st.ExitStatus())
}

// Exited is closed when the program's end is known; Status then holds it.
func (r *Run) Exited() <-chan struct{} { return r.exited }

// Status is the program's end; valid once Exited is closed.
func (r *Run) Status() Status { return r.status }

// Ended is closed once the guard itself is gone (with orphans kept, after the program).
func (r *Run) Ended() <-chan struct{} { return r.ended }

func (r *Run) command(line string) {
	r.ctlMu.Lock()
	defer r.ctlMu.Unlock()
	// After the guard is gone the pipe is closed and there is nothing to tell.
	r.ctl.Write([]byte(line + "\n"))
}

// Stop asks the guard to end the program: TERM to its group and everything under the guard,
// KILL 2 s later.
func (r *Run) Stop() { r.command(cmdStop) }

// Signal sends a signal by name (TERM, INT, KILL, HUP) to the program's group.
func (r *Run) Signal(name string) { r.command(cmdSignal + " " + name) }

// IntForeground has the guard send INT to a terminal's foreground group after it checks the
// group is still in the program's session; the note says when it was not sent.
func (r *Run) IntForeground(ctx context.Context, pgid int) (string, error) {
	r.command(fmt.Sprintf("%s %d", cmdIntFG, pgid))
	select {
	case n := <-r.notes:
		return n, nil
	case <-r.ended:
		return "INT was not sent: the process has ended", nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Kill ends the guard and everything under it at once (SIGKILL), for init's last step.
func (r *Run) Kill() { killTree(r.GuardPid) }

func killTree(pid int) {
	under := ptree.Descendants(ptree.All(), pid)
	syscall.Kill(pid, syscall.SIGKILL)
	for _, s := range under {
		syscall.Kill(s.Pid, syscall.SIGKILL)
	}
}
