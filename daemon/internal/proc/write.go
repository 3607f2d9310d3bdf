package proc

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"

	"agentrun.dev/computerd/internal/rpc"
)

// WriteTimeout bounds a write, its turn included.
const WriteTimeout = 10 * time.Second

// WriteParams of process.write: close closes stdin after the data.
type WriteParams struct {
	ID    string     `json:"id"`
	Data  *rpc.Bytes `json:"data,omitempty"`
	Close bool       `json:"close,omitempty"`
}

// Empty is the result of a call that answers nothing but success.
type Empty struct{}

// Write serves process.write: writes to one process take turns; each waits at most 10 s, its
// turn included, for the program to read.
func (t *Table) Write(ctx context.Context, q WriteParams) (Empty, error) {
	p, err := t.lookup(q.ID)
	if err != nil {
		return Empty{}, err
	}
	if p.stdin == nil {
		return Empty{}, rpc.Errorf(rpc.Invalid, "process %s has no stdin: start it with stdin: true, or a pty", q.ID)
	}
	if q.Close && p.pty {
		return Empty{}, rpc.Errorf(rpc.Invalid, `a terminal has no stdin to close: write "\u0004" for the end of input, or signal HUP`)
	}
	deadline := time.Now().Add(WriteTimeout)
	timer := time.NewTimer(WriteTimeout)
	defer timer.Stop()
	select {
	case p.writes <- struct{}{}:
		defer func() { <-p.writes }()
	case <-timer.C:
		return Empty{}, rpc.Errorf(rpc.Timeout, "process.write waited 10 s for its turn and wrote 0 bytes")
	case <-ctx.Done():
		return Empty{}, rpc.Errorf(rpc.Aborted, "process.write was cancelled while it waited for its turn; nothing was written")
	}
	t.mu.Lock()
	closed, exited := p.closed, p.exited
	t.mu.Unlock()
	if closed {
		return Empty{}, rpc.Errorf(rpc.Invalid, "process %s's stdin is closed", q.ID)
	}
	if exited && p.master == nil {
		return Empty{}, rpc.Errorf(rpc.Invalid, "process %s has ended", q.ID)
	}
	var data []byte
	if q.Data != nil {
		data = *q.Data
	}
	written := 0
	if len(data) > 0 {
		p.stdin.SetWriteDeadline(deadline)
		stop := context.AfterFunc(ctx, func() { p.stdin.SetWriteDeadline(time.Unix(1, 0)) })
		written, err = p.stdin.Write(data)
		stop()
		p.stdin.SetWriteDeadline(time.Time{})
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return Empty{}, rpc.Errorf(rpc.Aborted, "process.write was cancelled after %d of %d bytes", written, len(data))
		case errors.Is(err, os.ErrDeadlineExceeded):
			return Empty{}, rpc.Errorf(rpc.Timeout, "process.write wrote %d of %d bytes in 10 s: the program is not reading its input", written, len(data))
		case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.EIO), errors.Is(err, os.ErrClosed):
			return Empty{}, rpc.Errorf(rpc.Invalid, "process %s's input is closed: the program and everything it started closed stdin (%d of %d bytes written)", q.ID, written, len(data))
		default:
			return Empty{}, err
		}
	}
	if q.Close {
		t.mu.Lock()
		if !p.closed {
			p.closed = true
			p.stdin.Close()
		}
		t.mu.Unlock()
	}
	return Empty{}, nil
}
