package deadline

import (
	"context"
	"fmt"
	"sync"
	"time"

	"agentrun.dev/computerd/internal/rpc"
)

// Clock holds the deadline and fires once when it is reached.
type Clock struct {
	mu    sync.Mutex
	at    time.Time
	max   time.Time // zero: no --max-deadline, so no move is allowed
	timer *time.Timer
	fired chan struct{}
	once  sync.Once
}

// New starts a clock at at, with an optional maximum (zero for none). A maximum before the
// deadline is refused.
func New(at, max time.Time) (*Clock, error) {
	if !max.IsZero() && max.Before(at) {
		return nil, fmt.Errorf("--max-deadline %s is before --deadline %s: give a maximum at or after the deadline", max.Format(time.RFC3339), at.Format(time.RFC3339))
	}
	c := &Clock{at: at, max: max, fired: make(chan struct{})}
	c.timer = time.AfterFunc(time.Until(at), c.fire)
	return c, nil
}

func (c *Clock) fire() {
	c.mu.Lock()
	early := time.Now().Before(c.at)
	left := time.Until(c.at)
	c.mu.Unlock()
	// A move raced the timer: wait for the new deadline.
	if early {
		c.mu.Lock()
		c.timer = time.AfterFunc(left, c.fire)
		c.mu.Unlock()
		return
	}
	c.once.Do(func() { close(c.fired) })
}

// Fired is closed when the deadline is reached.
func (c *Clock) Fired() <-chan struct{} { return c.fired }

// At is the deadline held now.
func (c *Clock) At() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.at
}

// ExtendParams of deadline.extend: at is an ISO time.
type ExtendParams struct {
	At string `json:"at"`
}

// ExtendResult is the deadline held after the call.
type ExtendResult struct {
	At string `json:"at"`
}

// Extend serves deadline.extend. A refusal moves nothing.
func (c *Clock) Extend(_ context.Context, p ExtendParams) (ExtendResult, error) {
	at, err := time.Parse(time.RFC3339Nano, p.At)
	if err != nil {
		return ExtendResult{}, rpc.Errorf(rpc.Invalid, "at %q is not an ISO time such as 2026-01-02T15:04:05Z", p.At)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.fired:
		return ExtendResult{}, rpc.Errorf(rpc.Unsupported, "the deadline has passed and the computer is shutting down")
	default:
	}
	if c.max.IsZero() {
		return ExtendResult{}, rpc.Errorf(rpc.Unsupported, "this computer's deadline cannot be moved: init was started without --max-deadline")
	}
	if at.Before(c.at) {
		return ExtendResult{}, rpc.Errorf(rpc.Invalid, "at %s is earlier than the deadline held, %s: a deadline only moves later", Format(at), Format(c.at))
	}
	if at.After(c.max) {
		return ExtendResult{}, rpc.Errorf(rpc.Limit, "at %s is past the most this computer was allowed, %s", Format(at), Format(c.max))
	}
	c.at = at
	c.timer.Reset(time.Until(at))
	return ExtendResult{At: Format(at)}, nil
}

// Format writes a time as the protocol does: UTC, RFC 3339 with milliseconds.
func Format(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
