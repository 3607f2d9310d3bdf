package proc

import (
	"context"

	"agentrun.dev/computerd/internal/guard"
	"agentrun.dev/computerd/internal/pty"
	"agentrun.dev/computerd/internal/rpc"
)

// SignalParams of process.signal: TERM, INT, KILL or HUP.
type SignalParams struct {
	ID     string `json:"id"`
	Signal string `json:"signal"`
}

// SignalResult: note says where INT to a terminal went, or that it was not sent.
type SignalResult struct {
	Note string `json:"note,omitempty"`
}

// Signal serves process.signal: to the program's process group, except INT with a pty, which
// is ^C to the terminal's foreground group. To a process that has ended it does nothing.
func (t *Table) Signal(ctx context.Context, q SignalParams) (SignalResult, error) {
	if _, ok := guard.Sendable[q.Signal]; !ok {
		return SignalResult{}, rpc.Errorf(rpc.Invalid, "signal is TERM, INT, KILL or HUP, not %q", q.Signal)
	}
	p, err := t.lookup(q.ID)
	if err != nil {
		return SignalResult{}, err
	}
	t.mu.Lock()
	exited := p.exited
	t.mu.Unlock()
	if exited {
		return SignalResult{}, nil
	}
	if q.Signal != "INT" || !p.pty {
		p.run.Signal(q.Signal)
		return SignalResult{}, nil
	}
	fg, err := pty.Foreground(p.master)
	if err != nil || fg <= 0 {
		p.run.Signal("INT")
		return SignalResult{Note: "the terminal has no foreground process group: INT went to the program's group"}, nil
	}
	if sid, err := pty.Session(p.master); err != nil || sid != p.pid {
		return SignalResult{}, rpc.Errorf(rpc.Denied, "the terminal was handed to another session (%d), outside the program's: INT was not sent", sid)
	}
	note, err := p.run.IntForeground(ctx, fg)
	if err != nil {
		return SignalResult{}, rpc.Errorf(rpc.Aborted, "process.signal was cancelled")
	}
	return SignalResult{Note: note}, nil
}

// ResizeParams of process.resize.
type ResizeParams struct {
	ID   string `json:"id"`
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
}

// Resize serves process.resize: the terminal's new size; the program gets SIGWINCH.
func (t *Table) Resize(_ context.Context, q ResizeParams) (Empty, error) {
	if err := checkSize(q.Cols, q.Rows); err != nil {
		return Empty{}, err
	}
	p, err := t.lookup(q.ID)
	if err != nil {
		return Empty{}, err
	}
	if !p.pty {
		return Empty{}, rpc.Errorf(rpc.Invalid, "process %s has no terminal to resize: start it with pty", q.ID)
	}
	t.mu.Lock()
	exited := p.exited
	t.mu.Unlock()
	if exited {
		return Empty{}, rpc.Errorf(rpc.Invalid, "process %s has ended", q.ID)
	}
	return Empty{}, pty.Resize(p.master, q.Cols, q.Rows)
}
