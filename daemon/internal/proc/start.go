package proc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"agentrun.dev/computerd/internal/guard"
	"agentrun.dev/computerd/internal/launch"
	"agentrun.dev/computerd/internal/pty"
	"agentrun.dev/computerd/internal/rpc"
)

// Size is a terminal's size.
type Size struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// StartParams of process.start. stdin true keeps a pipe for process.write; without it (and
// without a pty) stdin is /dev/null. orphans "keep" leaves what the program started running.
type StartParams struct {
	Argv      []string          `json:"argv"`
	Cwd       string            `json:"cwd,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	User      string            `json:"user,omitempty"`
	Pty       *Size             `json:"pty,omitempty"`
	Stdin     bool              `json:"stdin,omitempty"`
	Log       string            `json:"log,omitempty"`
	WaitGroup bool              `json:"waitGroup,omitempty"`
	Orphans   string            `json:"orphans,omitempty"`
}

// StartResult: pid is the program's.
type StartResult struct {
	ID  string `json:"id"`
	Pid int    `json:"pid"`
}

func checkSize(cols, rows int) error {
	if cols < 1 || rows < 1 || cols > 65535 || rows > 65535 {
		return rpc.Errorf(rpc.Invalid, "a terminal's cols and rows are 1 to 65535, not %dx%d", cols, rows)
	}
	return nil
}

// Start serves process.start.
func (t *Table) Start(ctx context.Context, q StartParams) (StartResult, error) {
	spec, cred, err := launch.Spec(launch.Request{Argv: q.Argv, Cwd: q.Cwd, Env: q.Env, User: q.User})
	if err != nil {
		return StartResult{}, err
	}
	if q.Orphans != "" && q.Orphans != "keep" {
		return StartResult{}, rpc.Errorf(rpc.Invalid, `orphans is "keep" or left out, not %q`, q.Orphans)
	}
	if q.Pty != nil {
		if err := checkSize(q.Pty.Cols, q.Pty.Rows); err != nil {
			return StartResult{}, err
		}
		if q.Stdin {
			return StartResult{}, rpc.Errorf(rpc.Invalid, "a pty is the program's input already: leave stdin out")
		}
	}
	spec.Pty, spec.WaitGroup, spec.KeepOrphans = q.Pty != nil, q.WaitGroup, q.Orphans == "keep"

	select {
	case t.starts <- struct{}{}:
		defer func() { <-t.starts }()
	case <-ctx.Done():
		return StartResult{}, rpc.Errorf(rpc.Aborted, "process.start was cancelled while it waited for its turn; nothing was started")
	}
	t.mu.Lock()
	full := len(t.order) >= t.max
	if full {
		anyEnded := false
		for _, p := range t.order {
			anyEnded = anyEnded || p.exited
		}
		if !anyEnded {
			t.mu.Unlock()
			return StartResult{}, rpc.Errorf(rpc.Limit, "all %d processes in the table run: end one before starting another", t.max)
		}
	}
	t.mu.Unlock()

	p := &Process{t: t, argv: q.Argv, pty: q.Pty != nil, streams: map[string]*stream{}, writes: make(chan struct{}, 1), changed: make(chan struct{})}
	var log *logFile
	if q.Log != "" {
		if log, err = createLog(q.Log); err != nil {
			return StartResult{}, err
		}
	}
	opts := guard.Options{Spec: spec, Cred: cred}
	var readers map[string]*os.File
	var theirs []*os.File // the guard's ends, closed here once it holds them
	fail := func(err error) (StartResult, error) {
		for _, f := range theirs {
			f.Close()
		}
		for _, f := range readers {
			f.Close()
		}
		if p.stdin != nil {
			p.stdin.Close()
		}
		if log != nil {
			log.remove()
		}
		if errors.Is(err, context.Canceled) {
			return StartResult{}, rpc.Errorf(rpc.Aborted, "process.start was cancelled before its program ran; nothing was started")
		}
		return StartResult{}, err
	}
	if q.Pty != nil {
		master, slave, err := pty.Open(q.Pty.Cols, q.Pty.Rows)
		if err != nil {
			return fail(err)
		}
		theirs = append(theirs, slave)
		p.master, p.stdin = master, master
		readers = map[string]*os.File{"pty": master}
		opts.Stdin, opts.Stdout, opts.Stderr = slave, slave, slave
	} else {
		outR, outW, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		readers = map[string]*os.File{"stdout": outR}
		theirs = append(theirs, outW)
		errR, errW, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		readers["stderr"] = errR
		theirs = append(theirs, errW)
		opts.Stdout, opts.Stderr = outW, errW
		if q.Stdin {
			inR, inW, err := os.Pipe()
			if err != nil {
				return fail(err)
			}
			theirs = append(theirs, inR)
			p.stdin = inW
			opts.Stdin = inR
		}
	}
	run, err := t.runs.Start(ctx, opts)
	if err != nil {
		return fail(err)
	}
	for _, f := range theirs {
		f.Close()
	}
	p.run, p.pid, p.started, p.log = run, run.Pid, time.Now(), log
	for name := range readers {
		p.streams[name] = &stream{ring: newRing(RingBytes)}
	}

	t.mu.Lock()
	if len(t.order) >= t.max {
		t.dropEndedFirst()
	}
	t.next++
	p.seq = t.next
	p.id = fmt.Sprintf("p%d", p.seq)
	t.byID[p.id] = p
	t.order = append(t.order, p)
	t.mu.Unlock()

	done := make(chan struct{}, len(readers))
	for name, f := range readers {
		go p.drain(name, f, done)
	}
	go p.watch(len(readers), done)
	return StartResult{ID: p.id, Pid: p.pid}, nil
}

// drain reads one stream into its ring (and the log) until its pipe ends.
func (p *Process) drain(name string, f *os.File, done chan<- struct{}) {
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if p.log != nil {
				p.log.write(buf[:n])
			}
			p.t.mu.Lock()
			p.t.append(p, name, buf[:n])
			p.t.mu.Unlock()
		}
		if err != nil {
			// EOF for a pipe; EIO for a terminal once no program holds it.
			break
		}
	}
	if f != p.master {
		f.Close()
	}
	p.t.mu.Lock()
	p.streams[name].eof = true
	p.notify()
	p.t.mu.Unlock()
	done <- struct{}{}
}

// watch records the program's end, and lets go of the terminal once its output is read.
func (p *Process) watch(streams int, done <-chan struct{}) {
	<-p.run.Exited()
	p.t.mu.Lock()
	p.exited, p.status, p.ended = true, p.run.Status(), time.Now()
	p.t.ends++
	p.endedSeq = p.t.ends
	p.notify()
	p.t.mu.Unlock()
	for i := 0; i < streams; i++ {
		<-done
	}
	p.t.mu.Lock()
	if p.master != nil {
		p.master.Close()
	} else if p.stdin != nil && !p.closed {
		p.stdin.Close()
		p.closed = true
	}
	p.notify()
	p.t.mu.Unlock()
}
