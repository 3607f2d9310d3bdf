package proc

import (
	"context"
	"time"

	"agentrun.dev/computerd/internal/rpc"
)

// Read bounds: at most 512 KiB a call, and a wait of at most 30 s.
const (
	MaxRead   = 512 << 10
	MaxWaitMs = 30000
)

// ReadParams of process.read: stream is stdout, stderr, pty or log.
type ReadParams struct {
	ID       string `json:"id"`
	Stream   string `json:"stream"`
	Offset   int64  `json:"offset"`
	MaxBytes *int   `json:"maxBytes,omitempty"`
	WaitMs   *int   `json:"waitMs,omitempty"`
}

// ReadResult of process.read.
type ReadResult struct {
	Data       rpc.Bytes `json:"data"`
	NextOffset int64     `json:"nextOffset"`
	Dropped    int64     `json:"dropped"`
	Exited     bool      `json:"exited"`
	Size       int64     `json:"size"`
	Capped     bool      `json:"capped,omitempty"`
	LogError   string    `json:"logError,omitempty"`
}

// Read serves process.read. With waitMs it waits, while nothing past offset has come, until
// bytes come, the process ends, or the time is up.
func (t *Table) Read(ctx context.Context, q ReadParams) (ReadResult, error) {
	max := MaxRead
	if q.MaxBytes != nil {
		if *q.MaxBytes < 1 || *q.MaxBytes > MaxRead {
			return ReadResult{}, rpc.Errorf(rpc.Limit, "maxBytes %d is outside 1 to %d (512 KiB)", *q.MaxBytes, MaxRead)
		}
		max = *q.MaxBytes
	}
	wait := 0
	if q.WaitMs != nil {
		if *q.WaitMs < 0 || *q.WaitMs > MaxWaitMs {
			return ReadResult{}, rpc.Errorf(rpc.Invalid, "waitMs %d is outside 0 to %d", *q.WaitMs, MaxWaitMs)
		}
		wait = *q.WaitMs
	}
	if q.Offset < 0 {
		return ReadResult{}, rpc.Errorf(rpc.Invalid, "offset must not be negative")
	}
	p, err := t.lookup(q.ID)
	if err != nil {
		return ReadResult{}, err
	}
	switch {
	case q.Stream == "log" && p.log == nil:
		return ReadResult{}, rpc.Errorf(rpc.Invalid, "process %s has no log: start it with log", q.ID)
	case q.Stream == "pty" && !p.pty, (q.Stream == "stdout" || q.Stream == "stderr") && p.pty:
		return ReadResult{}, rpc.Errorf(rpc.Invalid, "process %s has no %s stream: a process with a pty has one stream, pty; without, stdout and stderr", q.ID, q.Stream)
	case q.Stream != "log" && q.Stream != "pty" && q.Stream != "stdout" && q.Stream != "stderr":
		return ReadResult{}, rpc.Errorf(rpc.Invalid, "stream is stdout, stderr, pty or log, not %q", q.Stream)
	}
	deadline := time.After(time.Duration(wait) * time.Millisecond)
	for {
		res, ready, changed, err := t.readOnce(p, q.Stream, q.Offset, max)
		if err != nil || ready || wait == 0 {
			return res, err
		}
		select {
		case <-changed:
		case <-deadline:
			wait = 0
		case <-ctx.Done():
			return ReadResult{}, rpc.Errorf(rpc.Aborted, "process.read was cancelled")
		}
	}
}

// readOnce reads what is there; ready is false when nothing past offset has come and the
// stream can still grow.
func (t *Table) readOnce(p *Process, name string, off int64, max int) (ReadResult, bool, <-chan struct{}, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	allEOF := true
	for _, s := range p.streams {
		allEOF = allEOF && s.eof
	}
	if name == "log" {
		size, capped, logErr := p.log.stat()
		if off > size {
			return ReadResult{}, false, nil, rpc.Errorf(rpc.Invalid, "offset %d is past the log's end, %d", off, size)
		}
		buf := make([]byte, min(int64(max), size-off))
		n, size, capped, logErr := p.log.read(buf, off)
		done := p.exited && allEOF && off+int64(n) >= size
		res := ReadResult{Data: buf[:n], NextOffset: off + int64(n), Exited: done, Size: size, Capped: capped, LogError: logErr}
		return res, n > 0 || done, p.changed, nil
	}
	s := p.streams[name]
	r := s.ring
	if off > r.size {
		return ReadResult{}, false, nil, rpc.Errorf(rpc.Invalid, "offset %d is past the stream's end, %d", off, r.size)
	}
	done := p.exited && s.eof
	if r.released {
		// Let go under the budget: every byte from offset on is dropped.
		return ReadResult{Data: rpc.Bytes{}, NextOffset: r.size, Dropped: r.size - off, Exited: done, Size: r.size}, true, p.changed, nil
	}
	var dropped int64
	if off < r.start() {
		dropped, off = r.start()-off, r.start()
	}
	buf := make([]byte, min(int64(max), r.size-off))
	n := r.copyOut(buf, off)
	next := off + int64(n)
	res := ReadResult{Data: buf[:n], NextOffset: next, Dropped: dropped, Exited: done && next == r.size, Size: r.size}
	return res, n > 0 || dropped > 0 || done, p.changed, nil
}
