package x11

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"agentrun.dev/computerd/internal/rpc"
)

// Unavailable says why no display is driven: DISPLAY unset, nothing answering, no XTEST.
type Unavailable struct{ Why string }

func (e *Unavailable) Error() string { return e.Why }

// RPCError gives a display's failure its kind for a method's caller: no display is
// unsupported, saying why; a turn not had in time is aborted.
func RPCError(err error) error {
	var un *Unavailable
	switch {
	case err == nil:
		return nil
	case errors.As(err, &un):
		return rpc.Errorf(rpc.Unsupported, "no X display is driven: %s", un.Why)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return rpc.Errorf(rpc.Aborted, "%v", err)
	case errors.Is(err, ErrGone):
		return rpc.Errorf(rpc.Unsupported, "%v", err)
	}
	return err
}

// Display is the daemon's one display: reached when first asked for and again after it goes,
// used by one caller at a time.
type Display struct {
	addr    Address
	addrErr error
	auth    string // the Xauthority file's path
	turn    chan struct{}
	conn    *Conn
	dial    func(Address, *Cookie) (*Conn, error)
	mu      sync.Mutex // guards gen
	gen     int        // bumped at each new connection, so a caller's state for an old one is dropped
}

// NewDisplay is the display DISPLAY names, authenticated from the Xauthority file at authPath.
func NewDisplay(display, authPath string) *Display {
	d := &Display{auth: authPath, turn: make(chan struct{}, 1), dial: Dial}
	d.addr, d.addrErr = ParseDisplay(display)
	return d
}

// Do runs fn with the display's connection, waiting its turn no longer than ctx. A connection
// that breaks under fn is dropped, so the next caller dials again.
func (d *Display) Do(ctx context.Context, fn func(c *Conn, gen int) error) error {
	select {
	case d.turn <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("another request held the display until this one ended: %w", ctx.Err())
	}
	defer func() { <-d.turn }()
	if err := d.connect(); err != nil {
		return err
	}
	err := fn(d.conn, d.Generation())
	if d.conn.Broken() != nil {
		d.conn.Close()
		d.conn = nil
	}
	return err
}

func (d *Display) connect() error {
	if d.conn != nil {
		return nil
	}
	if d.addrErr != nil {
		return &Unavailable{Why: d.addrErr.Error()}
	}
	cookie, err := ReadCookie(d.auth, d.addr.Number)
	if err != nil {
		return &Unavailable{Why: err.Error()}
	}
	c, err := d.dial(d.addr, cookie)
	if err != nil {
		return &Unavailable{Why: "no X display answers: " + err.Error()}
	}
	if err := c.UseXTEST(); err != nil {
		c.Close()
		return &Unavailable{Why: err.Error()}
	}
	d.conn = c
	d.mu.Lock()
	d.gen++
	d.mu.Unlock()
	return nil
}

// Generation counts the connections made; state kept for one is stale under the next.
func (d *Display) Generation() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.gen
}

// Answers says whether the display answers with XTEST now (one round trip), or why not. A
// display busy with another caller answers.
func (d *Display) Answers() (bool, string) {
	select {
	case d.turn <- struct{}{}:
	default:
		return true, ""
	}
	defer func() { <-d.turn }()
	if err := d.connect(); err != nil {
		return false, err.Error()
	}
	if err := d.conn.Sync(); err != nil && errors.Is(err, ErrGone) {
		d.conn.Close()
		d.conn = nil
		// It went: try once more at once, so a restarted server answers this hello.
		if err := d.connect(); err != nil {
			return false, err.Error()
		}
	}
	return true, ""
}
