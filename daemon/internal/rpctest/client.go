package rpctest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/rpc"
)

// WireError is an error reply as it came.
type WireError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Kind string `json:"kind"`
	} `json:"data"`
}

func (e *WireError) Error() string { return fmt.Sprintf("%s: %s", e.Data.Kind, e.Message) }

// Reply is one line, or one frame, from the daemon.
type Reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *WireError      `json:"error"`
	// Framed: the reply came as a frame, its result's data as Bytes.
	Framed bool   `json:"-"`
	Bytes  []byte `json:"-"`
}

// Client talks to a daemon over a writer and a reader of lines.
type Client struct {
	w      io.WriteCloser
	mu     sync.Mutex
	next   int
	wait   map[string]chan Reply
	orphan chan Reply // replies with a null id
}

// New reads replies from r and writes requests to w.
func New(r io.Reader, w io.WriteCloser) *Client {
	c := &Client{w: w, wait: map[string]chan Reply{}, orphan: make(chan Reply, 16)}
	go func() {
		// Frames are read whether asked for or not: a daemon sends one only to a frame.
		lines := rpc.NewLineReader(r, 4<<20)
		var frames atomic.Bool
		frames.Store(true)
		for {
			m, err := lines.NextMessage(&frames)
			if err == rpc.ErrLineTooLong {
				continue
			}
			if err != nil {
				return
			}
			var rep Reply
			if json.Unmarshal(m.Head, &rep) != nil {
				continue
			}
			rep.Framed, rep.Bytes = m.Framed, m.Bytes
			c.mu.Lock()
			ch := c.wait[string(rep.ID)]
			delete(c.wait, string(rep.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- rep
			} else {
				c.orphan <- rep
			}
		}
	}()
	return c
}

// Send writes one raw line.
func (c *Client) Send(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	io.WriteString(c.w, line+"\n")
}

// Start sends a request and returns its id and where its reply comes.
func (c *Client) Start(method string, params any) (int, <-chan Reply) {
	return c.start(method, params, nil)
}

// StartFrame sends a request as a frame carrying b as its data (params give data as "", or
// none), and returns its id and where its reply comes.
func (c *Client) StartFrame(method string, params any, b []byte) (int, <-chan Reply) {
	if b == nil {
		b = []byte{}
	}
	return c.start(method, params, b)
}

func (c *Client) start(method string, params any, frame []byte) (int, <-chan Reply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	id := c.next
	ch := make(chan Reply, 1)
	c.wait[fmt.Sprint(id)] = ch
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if frame == nil {
		io.WriteString(c.w, string(b)+"\n")
		return id, ch
	}
	c.w.Write(append(append(rpc.AppendFrameLead(nil, len(b), len(frame)), b...), frame...))
	return id, ch
}

// Write sends raw bytes, a frame's or a line's.
func (c *Client) Write(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.w.Write(b)
}

// Wait waits (up to 60 s) for a reply that Start or StartFrame asked for.
func Wait(t testing.TB, ch <-chan Reply) Reply {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(60 * time.Second):
		t.Fatal("no reply within 60 s")
		return Reply{}
	}
}

// Call sends a request and waits (up to 60 s) for its reply; into, when not nil, gets the result.
func (c *Client) Call(ctx context.Context, method string, params any, into any) error {
	_, ch := c.Start(method, params)
	select {
	case rep := <-ch:
		if rep.Error != nil {
			return rep.Error
		}
		if into != nil {
			return json.Unmarshal(rep.Result, into)
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(60 * time.Second):
		return fmt.Errorf("no reply to %s within 60 s", method)
	}
}

// Orphan waits for a reply with no id of a request (an error about a line).
func (c *Client) Orphan(t testing.TB) Reply {
	t.Helper()
	select {
	case r := <-c.orphan:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no reply for the bad line within 10 s")
		return Reply{}
	}
}

// Close ends the input.
func (c *Client) Close() error { return c.w.Close() }

// Must fails the test on an error.
func (c *Client) Must(t testing.TB, method string, params any, into any) {
	t.Helper()
	if err := c.Call(context.Background(), method, params, into); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
}

// Fails calls a method that must fail and returns the error's kind and message.
func (c *Client) Fails(t testing.TB, method string, params any) *WireError {
	t.Helper()
	err := c.Call(context.Background(), method, params, nil)
	we, ok := err.(*WireError)
	if !ok {
		t.Fatalf("%s(%v) did not fail with an error reply: %v", method, params, err)
	}
	return we
}
