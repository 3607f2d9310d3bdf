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

// Start starts a guard and its program, and returns once the program runs. When ctx ends
// first, the guard is killed with everything under it and ctx's error returned.
func Start(ctx context.Context, o Options) (*Run, error) {
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
	null, err := os.OpenFile("/dev/null", os.O_RDWR, 0)
	if err != nil {
		ctlR.Close()
		ctlW.Close()
		repR.Close()
		repW.Close()
		return nil, err
	}
	defer null.Close()
	files := []*os.File{orNull(o.Stdin, null), orNull(o.Stdout, null), orNull(o.Stderr, null), ctlR, repW}
	pid, guardEnd, err := reaper.Spawn(func() (int, error) {
		// GOMAXPROCS given spares each guard the runtime's read of its cgroup limits and
		// mountinfo at start; the guard needs one processor. Its program gets spec.Env alone.
		p, err := os.StartProcess(Exe, Args, &os.ProcAttr{Env: []string{"GOMAXPROCS=1"}, Files: files, Sys: &syscall.SysProcAttr{Credential: o.Cred}})
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
	r := &Run{GuardPid: pid, ctl: ctlW, exited: make(chan struct{}), notes: make(chan string, 1), ended: make(chan struct{})}
	spec, _ := json.Marshal(o.Spec)
	ctlW.Write(append(spec, '\n'))

	started := make(chan error, 1)
	go r.read(repR, guardEnd, started)
	select {
	case err := <-started:
		if err != nil {
			<-r.ended
			return nil, err
		}
		return r, nil
	case <-ctx.Done():
		// The program has not started (its exec may be stalled): end the guard and all under it.
		killTree(pid)
		<-r.ended
		return nil, ctx.Err()
	}
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
		started <- fmt.Errorf("the guard ended before its program started (%s)", describe(st))
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
