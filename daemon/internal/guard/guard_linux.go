package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"agentrun.dev/computerd/internal/procctl"
	"agentrun.dev/computerd/internal/ptree"
	"agentrun.dev/computerd/internal/rpc"
)

// KillDelay is how long after SIGTERM a stop sends SIGKILL.
const KillDelay = 2 * time.Second

// Main is `computerd guard`: fd 3 is the control socket, fd 4 the report pipe, 0-2 /dev/null.
// Each run's spec comes as a line on the control socket with the program's stdin, stdout and
// stderr beside it (SCM_RIGHTS). It returns the guard's exit code.
//
// A guard serves one run at a time and, once nothing is left under it, reports done and waits
// for the next: the daemon keeps one so waiting, so a run's latency holds no start of a guard.
// The guard is one thread of work: it blocks in ppoll on its control socket and on the
// program's pidfd, with no signal handler and no reader goroutine.
func Main() int {
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	rep := &reporter{fd: 4}
	// gVisor's kernel (2022-12) has no subreapers (EINVAL): a run's orphans go to init, whose
	// sweep ends every child that is not a guard, as the guard would have ended them.
	if err := procctl.ChildSubreaper(); err != nil && err != syscall.EINVAL {
		rep.send(report{Error: "the guard could not become a subreaper: " + err.Error(), Kind: string(rpc.Unsupported)})
		return 1
	}
	// The guard holds each run's stdio and its limits: the program it runs, as the same user,
	// must not reach into it.
	if err := procctl.NotDumpable(); err != nil {
		rep.send(report{Error: "the guard could not keep its programs out: " + err.Error(), Kind: string(rpc.Unsupported)})
		return 1
	}
	ctl := &lineReader{fd: 3}
	for {
		line, stdio, ok := ctl.next()
		if !ok {
			// The daemon let this guard go (or is gone) with no run under way.
			return 0
		}
		var spec Spec
		if err := json.Unmarshal(line, &spec); err != nil || len(spec.Argv) == 0 || len(stdio) != 3 {
			closeFds(stdio)
			rep.send(report{Error: "the guard got no program to run", Kind: string(rpc.Invalid)})
			return 1
		}
		serve(ctl, rep, spec, stdio)
		if ctl.eof {
			return 0
		}
		rep.send(report{Done: true})
	}
}

// serve runs one program to its end and ends whatever it left under the guard; a program that
// cannot start is reported, and the guard is ready again all the same.
func serve(ctl *lineReader, rep *reporter, spec Spec, stdio []int) {
	pid, err := startProgram(spec, stdio)
	// Keep no copy of the program's stdio, so its closing them is seen from the moment its
	// start is reported; a terminal stays open until the program ends.
	tty := -1
	if spec.Pty && err == nil {
		tty, stdio = stdio[0], stdio[1:]
	}
	closeFds(stdio)
	if err != nil {
		rep.send(report{Error: err.Error(), Kind: string(rpc.KindOf(err))})
		return
	}
	rep.send(report{Started: pid})
	g := &guard{spec: spec, pid: pid, pidfd: pidfdOpen(pid), tty: tty, rep: rep}
	g.loop(ctl)
	if g.pidfd >= 0 {
		syscall.Close(g.pidfd)
	}
}

func closeFds(fds []int) {
	for _, fd := range fds {
		syscall.Close(fd)
	}
}

func startProgram(spec Spec, stdio []int) (int, error) {
	path := spec.Argv[0]
	if !strings.Contains(path, "/") {
		p, err := lookPath(path, envValue(spec.Env, "PATH"))
		if err != nil {
			return 0, err
		}
		path = p
	}
	sys := &syscall.SysProcAttr{Setpgid: true}
	if spec.Pty {
		// Ctty is the program's fd 0, its terminal.
		sys = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	}
	// syscall.ForkExec, not os.StartProcess: the os package's first start in a process probes
	// clone(CLONE_PIDFD) with a fork of its own.
	files := []uintptr{uintptr(stdio[0]), uintptr(stdio[1]), uintptr(stdio[2])}
	pid, err := syscall.ForkExec(path, spec.Argv, &syscall.ProcAttr{Dir: spec.Dir, Env: spec.Env, Files: files, Sys: sys})
	if err != nil {
		return 0, &os.PathError{Op: "start", Path: path, Err: err}
	}
	return pid, nil
}

func lookPath(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			dir = "."
		}
		p := filepath.Join(dir, name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", rpc.Errorf(rpc.NotFound, "%s: no such program on PATH (%s)", name, path)
}

func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// reporter writes report lines on the guard's one thread; a line is far under PIPE_BUF, so
// it is written whole.
type reporter struct{ fd int }

func (r *reporter) send(m report) {
	b, _ := json.Marshal(m)
	line := append(b, '\n')
	for {
		if _, err := syscall.Write(r.fd, line); err != syscall.EINTR {
			return
		}
	}
}

type guard struct {
	spec     Spec
	pid      int
	pidfd    int // -1 where the kernel has no pidfd_open: the tick finds the program's end
	tty      int // a pty's terminal, kept open until the program ends; -1 without one
	rep      *reporter
	status   *syscall.WaitStatus
	reported bool
	killAt   time.Time // when a stop's KILL is due; zero when no stop is under way
}

// tick bounds every wait: it finds what ended without waking the guard (an orphan's end, a
// group emptied after the program), as the spec's sweeps do.
const tick = 100 * time.Millisecond

// loop follows one run until its end is reported and nothing is left under the guard.
func (g *guard) loop(ctl *lineReader) {
	for {
		// With no child left there is nothing under the guard: no /proc walk is needed.
		none := g.reap()
		if g.status != nil && !g.reported && !(g.spec.WaitGroup && g.groupAlive()) {
			if !g.spec.KeepOrphans && !none {
				g.killAll()
			}
			g.sendExit()
		}
		if g.reported && (none || len(ptree.Children(ptree.All(), os.Getpid())) == 0) {
			return
		}
		wait := tick
		if !g.killAt.IsZero() {
			wait = min(wait, max(time.Until(g.killAt), 0))
		}
		fds := make([]pollFd, 0, 2)
		if !ctl.eof {
			fds = append(fds, pollFd{fd: int32(ctl.fd), events: pollIn})
		}
		if g.status == nil && g.pidfd >= 0 {
			fds = append(fds, pollFd{fd: int32(g.pidfd), events: pollIn})
		}
		poll(fds, wait)
		if !g.killAt.IsZero() && !time.Now().Before(g.killAt) {
			g.killAt = time.Time{}
			g.killAll()
		}
		if ctl.eof || fds[0].revents == 0 {
			continue
		}
		ctl.fill()
		for line := ctl.line(); line != nil; line = ctl.line() {
			g.command(string(line))
		}
		if ctl.eof {
			// End of the pipe: the daemon is gone, and no program outlives it.
			g.command(cmdStop)
		}
	}
}

// command carries out one line from the daemon.
func (g *guard) command(line string) {
	verb, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	switch verb {
	case cmdStop:
		if g.killAt.IsZero() {
			g.signalAll(syscall.SIGTERM)
			g.killAt = time.Now().Add(KillDelay)
		}
	case cmdSignal:
		if s, ok := Sendable[arg]; ok {
			g.signalGroups(s)
		}
	case cmdIntFG:
		pgid, _ := strconv.Atoi(arg)
		g.intForeground(pgid)
	}
}

// reap collects every ended child, the program's status among them; it reports when the
// guard has no child left at all (ECHILD).
func (g *guard) reap() bool {
	for {
		var st syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &st, syscall.WNOHANG, nil)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.ECHILD {
			return true
		}
		if pid <= 0 || err != nil {
			return false
		}
		if pid == g.pid {
			g.status = &st
		}
	}
}

func (g *guard) sendExit() {
	g.reported = true
	m := report{Exited: true}
	switch st := *g.status; {
	case st.Signaled():
		m.Signal = SignalName(st.Signal())
	default:
		code := st.ExitStatus()
		m.ExitCode = &code
	}
	if g.tty >= 0 {
		syscall.Close(g.tty)
		g.tty = -1
	}
	g.rep.send(m)
}

// groupAlive: a live process is still in the program's group (with a pty, its session).
func (g *guard) groupAlive() bool {
	for _, s := range ptree.All() {
		if s.State == 'Z' || s.State == 'X' {
			continue
		}
		if (!g.spec.Pty && s.Pgrp == g.pid) || (g.spec.Pty && s.Session == g.pid) {
			return true
		}
	}
	return false
}

// signalAll sends sig to the program's group and to every process under the guard.
func (g *guard) signalAll(sig syscall.Signal) {
	syscall.Kill(-g.pid, sig)
	for _, s := range ptree.Descendants(ptree.All(), os.Getpid()) {
		syscall.Kill(s.Pid, sig)
	}
}

// killAll kills and reaps everything under the guard. A process may fork while it is being
// killed, so it repeats until nothing is left, or 10 s have passed (a process stuck in the
// kernel cannot die sooner, and the program's end is reported all the same).
func (g *guard) killAll() {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); {
		ds := ptree.Descendants(ptree.All(), os.Getpid())
		if len(ds) == 0 {
			return
		}
		for _, s := range ds {
			if s.State != 'Z' {
				syscall.Kill(s.Pid, syscall.SIGKILL)
			}
		}
		g.reap()
		time.Sleep(2 * time.Millisecond)
	}
}

// signalGroups sends sig to the program's group; with waitGroup, to each group of the run.
func (g *guard) signalGroups(sig syscall.Signal) {
	groups := map[int]bool{g.pid: true}
	if g.spec.WaitGroup {
		for _, s := range ptree.Descendants(ptree.All(), os.Getpid()) {
			if s.State != 'Z' && s.Pgrp > 1 {
				groups[s.Pgrp] = true
			}
		}
	}
	for pg := range groups {
		syscall.Kill(-pg, sig)
	}
}

// intForeground sends INT to a terminal's foreground group after checking, right before, that
// the group still has a process in the program's session: its id may have gone to another.
func (g *guard) intForeground(pgid int) {
	for _, s := range ptree.All() {
		if s.Pgrp == pgid && s.Session == g.pid && s.State != 'Z' {
			syscall.Kill(-pgid, syscall.SIGINT)
			empty := ""
			g.rep.send(report{Note: &empty})
			return
		}
	}
	note := fmt.Sprintf("INT was not sent: the terminal's foreground group %d has no process left in the program's session", pgid)
	g.rep.send(report{Note: &note})
}
