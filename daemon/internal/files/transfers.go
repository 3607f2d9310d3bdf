package files

import (
	"context"
	"fmt"
	"sync"

	"agentrun.dev/computerd/internal/rpc"
)

// MaxOpen is the most pulls, and the most pushes, one connection holds open.
const MaxOpen = 8

// Transfers is one connection's open pulls and pushes, ended with it.
type Transfers struct {
	mu     sync.Mutex
	next   int
	pulls  map[string]*pull
	pushes map[string]*push
}

// NewTransfers starts a connection's empty set.
func NewTransfers() *Transfers {
	return &Transfers{pulls: map[string]*pull{}, pushes: map[string]*push{}}
}

// PullBegin serves tar.pull.begin.
func (t *Transfers) PullBegin(_ context.Context, p PathParams) (IDResult, error) {
	path, err := clean("path", p.Path)
	if err != nil {
		return IDResult{}, err
	}
	t.mu.Lock()
	full := len(t.pulls) >= MaxOpen
	t.mu.Unlock()
	if full {
		return IDResult{}, rpc.Errorf(rpc.Limit, "this connection has %d pulls open, the most: end one first", MaxOpen)
	}
	pl, err := beginPull(path)
	if err != nil {
		return IDResult{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pulls) >= MaxOpen {
		pl.end()
		return IDResult{}, rpc.Errorf(rpc.Limit, "this connection has %d pulls open, the most: end one first", MaxOpen)
	}
	t.next++
	id := fmt.Sprintf("pull%d", t.next)
	t.pulls[id] = pl
	return IDResult{ID: id}, nil
}

// PullRead serves tar.pull.read.
func (t *Transfers) PullRead(ctx context.Context, p PullReadParams) (PullReadResult, error) {
	max := MaxChunk
	if p.MaxBytes != nil {
		if *p.MaxBytes < 1 || *p.MaxBytes > MaxChunk {
			return PullReadResult{}, rpc.Errorf(rpc.Limit, "maxBytes %d is outside 1 to %d (512 KiB)", *p.MaxBytes, MaxChunk)
		}
		max = *p.MaxBytes
	}
	t.mu.Lock()
	pl := t.pulls[p.ID]
	t.mu.Unlock()
	if pl == nil {
		return PullReadResult{}, rpc.Errorf(rpc.NotFound, "no pull %q is open on this connection", p.ID)
	}
	return pl.read(ctx, max)
}

// PullEnd serves tar.pull.end: it stops the pull and frees it, and may be sent again.
func (t *Transfers) PullEnd(_ context.Context, p IDParams) (Empty, error) {
	t.mu.Lock()
	pl := t.pulls[p.ID]
	delete(t.pulls, p.ID)
	t.mu.Unlock()
	if pl != nil {
		pl.end()
	}
	return Empty{}, nil
}

// PushBegin serves tar.push.begin: it makes the directory when missing.
func (t *Transfers) PushBegin(_ context.Context, p PathParams) (IDResult, error) {
	path, err := clean("path", p.Path)
	if err != nil {
		return IDResult{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.pushes) >= MaxOpen {
		return IDResult{}, rpc.Errorf(rpc.Limit, "this connection has %d pushes open, the most: end one first", MaxOpen)
	}
	ps, err := beginPush(path)
	if err != nil {
		return IDResult{}, err
	}
	t.next++
	id := fmt.Sprintf("push%d", t.next)
	t.pushes[id] = ps
	return IDResult{ID: id}, nil
}

// PushWrite serves tar.push.write: the reply comes once the bytes are queued behind the chunk
// being extracted (one held ahead). A refused entry ends the push; entries before it stay, and
// the refusal answers the write after it, or the end.
func (t *Transfers) PushWrite(_ context.Context, p PushWriteParams) (Empty, error) {
	t.mu.Lock()
	ps := t.pushes[p.ID]
	t.mu.Unlock()
	if ps == nil {
		return Empty{}, rpc.Errorf(rpc.NotFound, "no push %q is open on this connection", p.ID)
	}
	// A failed push stays open until ended, and its end reports the same failure.
	return Empty{}, ps.write(p.Data)
}

// PushEnd serves tar.push.end.
func (t *Transfers) PushEnd(_ context.Context, p IDParams) (PushEndResult, error) {
	t.mu.Lock()
	ps := t.pushes[p.ID]
	delete(t.pushes, p.ID)
	t.mu.Unlock()
	if ps == nil {
		return PushEndResult{}, rpc.Errorf(rpc.NotFound, "no push %q is open on this connection", p.ID)
	}
	n, err := ps.end()
	if err != nil {
		return PushEndResult{}, err
	}
	return PushEndResult{Entries: n}, nil
}

// Close ends every pull and push still open, when the connection ends.
func (t *Transfers) Close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	for id, pl := range t.pulls {
		pl.end()
		delete(t.pulls, id)
	}
	for id, ps := range t.pushes {
		ps.end()
		delete(t.pushes, id)
	}
}
