package guard

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"agentrun.dev/computerd/internal/ptree"
	"agentrun.dev/computerd/internal/rpc"
)

// KillDelay is how long after SIGTERM a stop sends SIGKILL.
const KillDelay = 2 * time.Second

const prSetChildSubreaper = 36

// Main is `computerd guard`: fd 3 is the control pipe, fd 4 the report pipe, 0-2 the
// program's stdio. It returns the guard's exit code.
func Main() int {
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	ctl := os.NewFile(3, "control")
	rep := &reporter{f: os.NewFile(4, "report")}
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		rep.send(report{Error: "the guard could not become a subreaper: " + e.Error(), Kind: string(rpc.Unsupported)})
		return 1
	}
	// What the start needs is made ready while the guard waits for its spec (a warm guard waits
	// ahead of its run): SIGCHLD watched, so no end is missed; /dev/null open; the decoder of
	// a spec built.
	sigch := make(chan os.Signal, 64)
	signal.Notify(sigch, syscall.SIGCHLD)
	null, nullErr := syscall.Open("/dev/null", syscall.O_RDWR|syscall.O_CLOEXEC, 0)
	var warm, spec Spec
	json.Unmarshal([]byte(`{"argv":[],"env":[]}`), &warm)
	lines := bufio.NewReader(ctl)
	first, err := lines.ReadBytes('\n')
	if err != nil {
		return 1
	}
	if err := json.Unmarshal(first, &spec); err != nil || len(spec.Argv) == 0 {
		rep.send(report{Error: "the guard got no program to run", Kind: string(rpc.Invalid)})
		return 1
	}
	pid, err := startProgram(spec)
	if err != nil {
		rep.send(report{Error: err.Error(), Kind: string(rpc.KindOf(err))})
		return 1
	}
	// Keep no copy of the program's pipes, so its closing them is seen from the moment its
	// start is reported; a terminal stays open until the program ends.
	if nullErr == nil {
		if !spec.Pty {
			syscall.Dup3(null, 0, 0)
		}
		syscall.Dup3(null, 1, 0)
		syscall.Dup3(null, 2, 0)
		syscall.Close(null)
	}
	rep.send(report{Started: pid})
	g := &guard{spec: spec, pid: pid, rep: rep}
	return g.loop(lines, sigch)
}

func startProgram(spec Spec) (int, error) {
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
		sys = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	}
	// syscall.ForkExec, not os.StartProcess: the os package's first start in a process probes
	// clone(CLONE_PIDFD) with a fork of its own, and every guard is a new process.
	pid, err := syscall.ForkExec(path, spec.Argv, &syscall.ProcAttr{Dir: spec.Dir, Env: spec.Env, Files: []uintptr{0, 1, 2}, Sys: sys})
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

type reporter struct {
	mu sync.Mutex
	f  *os.File
}

func (r *reporter) send(m report) {
	b, _ := json.Marshal(m)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.f.Write(append(b, '\n'))
}

type guard struct {
	spec     Spec
	pid      int
	rep      *reporter
	status   *syscall.WaitStatus
	reported bool
}

func (g *guard) loop(lines *bufio.Reader, sigch chan os.Signal) int {
	cmds := make(chan string, 8)
	go func() {
		for {
			l, err := lines.ReadString('\n')
			if err != nil {
				cmds <- cmdStop
				close(cmds)
				return
			}
			cmds <- strings.TrimSpace(l)
		}
	}()
	poll := time.NewTicker(100 * time.Millisecond)
	defer poll.Stop()
	var killAt <-chan time.Time
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
			return 0
		}
		select {
		case <-sigch:
		case <-poll.C:
		case <-killAt:
			killAt = nil
			g.killAll()
		case c, ok := <-cmds:
			if !ok {
				cmds = nil
				continue
			}
			verb, arg, _ := strings.Cut(c, " ")
			switch verb {
			case cmdStop:
				if killAt == nil {
					g.signalAll(syscall.SIGTERM)
					killAt = time.After(KillDelay)
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
	if g.spec.Pty {
		syscall.Close(0)
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
