package guard

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
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
	ctl   *os.File // nil once the run is over: the guard may serve another

	exited chan struct{}
	status Status
	notes  chan string
	ended  chan struct{} // the run is over: its guard is gone, or waits for another run
}

// Launcher starts guards with one binary and arguments, read once, so a test may point a new
// daemon at another binary without racing the guards of the last.
type Launcher struct {
	Exe  string
	Args []string
}

// Default is the launcher of Exe and Args as they are now.
func Default() Launcher { return Launcher{Exe: Exe, Args: Args} }

// Start starts a guard and its program, and returns once the program runs; the guard ends
// with its run. When ctx ends first, the guard is killed with everything under it and ctx's
// error returned.
func (l Launcher) Start(ctx context.Context, o Options) (*Run, error) {
	null, err := os.OpenFile("/dev/null", os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	g, err := l.Spawn(o.Cred)
	if err != nil {
		return nil, err
	}
	return g.Begin(ctx, o.Spec, [3]*os.File{orNull(o.Stdin, null), orNull(o.Stdout, null), orNull(o.Stderr, null)}, nil)
}

// Idle is a guard that runs and waits for a run's spec.
type Idle struct {
	pid      int
	guardEnd <-chan syscall.WaitStatus
	ctl      *os.File // the daemon's end of the control socket
	repR     *os.File
	rep      *bufio.Scanner
}

// Spawn starts a guard, as cred's user (nil: the daemon's own), that waits for its first run.
func (l Launcher) Spawn(cred *syscall.Credential) (*Idle, error) {
	null, err := os.OpenFile("/dev/null", os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer null.Close()
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("the guard's control socket: %w", err)
	}
	ctlW, ctlR := os.NewFile(uintptr(pair[0]), "guard-control"), os.NewFile(uintptr(pair[1]), "guard-control")
	repR, repW, err := os.Pipe()
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		return nil, fmt.Errorf("the guard's report pipe: %w", err)
	}
	files := []*os.File{null, null, null, ctlR, repW}
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
	return &Idle{pid: pid, guardEnd: guardEnd, ctl: ctlW, repR: repR, rep: bufio.NewScanner(repR)}, nil
}

// Alive reports whether the guard still runs (a program, as the guard's user, may kill one
// that waits).
func (g *Idle) Alive() bool {
	select {
	case st := <-g.guardEnd:
		// Taken here, so give it back for whoever waits on it next.
		ch := make(chan syscall.WaitStatus, 1)
		ch <- st
		g.guardEnd = ch
		return false
	default:
		return true
	}
}

// Begin hands the guard a run's spec and the program's stdio, and waits for the program's
// start; the caller closes its copies of stdio. When the run is over, park is asked to keep
// the guard for another (nil: never); a guard not kept is let go and ends.
func (g *Idle) Begin(ctx context.Context, spec Spec, stdio [3]*os.File, park func(*Idle) bool) (*Run, error) {
	r := &Run{GuardPid: g.pid, ctl: g.ctl, exited: make(chan struct{}), notes: make(chan string, 1), ended: make(chan struct{})}
	line, _ := json.Marshal(spec)
	if err := g.send(append(line, '\n'), stdio); !errors.Is(err, syscall.EPIPE) && err != nil {
		// A guard that ended already (EPIPE) is read to its end below, as any ended guard.
		killTree(g.pid)
	}
	started := make(chan error, 1)
	go r.read(g, park, started)
	select {
	case err := <-started:
		if err != nil {
			<-r.ended
			return nil, err
		}
		return r, nil
	case <-ctx.Done():
		// The program has not started (its exec may be stalled): end the guard and all under it.
		killTree(g.pid)
		<-r.ended
		return nil, ctx.Err()
	}
}

// send writes line with stdio's descriptors beside its first bytes.
func (g *Idle) send(line []byte, stdio [3]*os.File) error {
	raw, err := g.ctl.SyscallConn()
	if err != nil {
		return err
	}
	rights := syscall.UnixRights(int(stdio[0].Fd()), int(stdio[1].Fd()), int(stdio[2].Fd()))
	var n int
	var sendErr error
	if err := raw.Write(func(fd uintptr) bool {
		n, sendErr = syscall.SendmsgN(int(fd), line, rights, nil, 0)
		return sendErr != syscall.EAGAIN
	}); err != nil {
		return err
	}
	if sendErr != nil {
		return sendErr
	}
	_, err = g.ctl.Write(line[n:])
	return err
}

// Discard ends a guard that waits: with its control socket closed it exits, and it is killed
// in case it is stuck.
func (g *Idle) Discard() {
	killTree(g.pid)
	g.ctl.Close()
	g.repR.Close()
}

// letGo closes the control socket of a guard between runs, so it exits, and waits for its end.
func (g *Idle) letGo() {
	g.ctl.Close()
	<-g.guardEnd
	g.repR.Close()
}

func orNull(f, null *os.File) *os.File {
	if f == nil {
		return null
	}
	return f
}

func (r *Run) read(g *Idle, park func(*Idle) bool, started chan<- error) {
	first := true
	for g.rep.Scan() {
		var m report
		if json.Unmarshal(g.rep.Bytes(), &m) != nil {
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
		case m.Done:
			// The run is over and nothing is left under the guard: no later command of this
			// run may reach the run the guard serves next.
			r.ctlMu.Lock()
			r.ctl = nil
			r.ctlMu.Unlock()
			if park == nil || !park(g) {
				g.letGo()
			}
			close(r.ended)
			return
		}
	}
	st := <-g.guardEnd
	g.repR.Close()
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
	r.ctl = nil
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

// Ended is closed once the run is over: nothing is left under its guard (with orphans kept,
// after they end), or the guard itself is gone.
func (r *Run) Ended() <-chan struct{} { return r.ended }

func (r *Run) command(line string) {
	r.ctlMu.Lock()
	defer r.ctlMu.Unlock()
	// After the run is over there is nothing to tell its guard.
	if r.ctl != nil {
		r.ctl.Write([]byte(line + "\n"))
	}
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
