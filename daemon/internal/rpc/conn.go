package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
)

// Handler serves one method: params in (raw JSON, nil when absent), a result or an error out.
type Handler func(ctx context.Context, params json.RawMessage) (any, error)

// Lookup finds a method; false answers "no such method".
type Lookup func(method string) (Entry, bool)

// CancelMethod is the notification that cancels a request in flight by its id.
const CancelMethod = "$/cancelRequest"

type reply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *wireError      `json:"error,omitempty"`
}

var nullID = json.RawMessage("null")

// Serve answers requests read from r on w until r ends. Each request runs at once on its own
// goroutine and replies when done, so replies come in any order. When r ends, every request
// still in flight is cancelled (its context), and Serve returns once all have replied.
func Serve(ctx context.Context, r io.Reader, w io.Writer, lookup Lookup) error {
	ctx, cancelAll := context.WithCancel(ctx)
	defer cancelAll()
	c := &conn{w: w, inflight: map[string]context.CancelFunc{}, tails: map[string]chan struct{}{}}
	ctx = context.WithValue(ctx, acceptKey{}, &c.frames)
	lines := NewLineReader(r, MaxLine)
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		msg, err := lines.NextMessage(&c.frames)
		switch err {
		case ErrLineTooLong, ErrFrameHeadTooLong:
			c.send(reply{ID: nullID, Error: toWire(Errorf(Limit, "%w", err))})
			continue
		case ErrFrameHeadEmpty:
			c.send(reply{ID: nullID, Error: toWire(Errorf(Invalid, "%w", err))})
			continue
		}
		line := msg.Head
		if err != nil {
			cancelAll()
			if err == io.EOF {
				return nil
			}
			return err
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		req, err := parseRequest(line)
		if err != nil {
			c.send(reply{ID: nullID, Error: &wireError{Code: codeParse, Message: "the line is not a JSON object: " + err.Error(), Data: errorData{Kind: Invalid}}})
			continue
		}
		id := req.ID
		if len(id) == 0 {
			id = nil
		}
		if req.JSONRPC != "2.0" || req.Method == nil || !validID(id) {
			c.send(reply{ID: orNull(id), Error: &wireError{Code: codeInvalidRequest, Message: `a request needs "jsonrpc": "2.0", a method and a string, number or no id`, Data: errorData{Kind: Invalid}}})
			continue
		}
		method := *req.Method
		if method == CancelMethod {
			c.cancel(req.Params)
			if id != nil {
				c.send(reply{ID: id, Result: struct{}{}})
			}
			continue
		}
		e, ok := lookup(method)
		if !ok {
			if id != nil {
				c.send(reply{ID: id, Error: &wireError{Code: codeNoMethod, Message: fmt.Sprintf("no method %q", method), Data: errorData{Kind: Unsupported}}})
			}
			continue
		}
		rctx, cancel := context.WithCancel(ctx)
		key := string(canonicalID(id))
		if id != nil {
			c.mu.Lock()
			if _, dup := c.inflight[key]; dup {
				c.mu.Unlock()
				cancel()
				c.send(reply{ID: id, Error: toWire(Errorf(Invalid, "request id %s is already in flight on this connection", key))})
				continue
			}
			c.inflight[key] = cancel
			c.mu.Unlock()
		}
		params := append(json.RawMessage(nil), req.Params...)
		if msg.Framed {
			rctx = withFrame(rctx, msg.Bytes)
		}
		var turn turn
		if msg.Over == 0 {
			turn = c.queue(e, params)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			var res any
			var err error
			if msg.Over > 0 {
				err = errFrameBytesTooLong(msg.Over)
			} else {
				turn.wait()
				res, err = e.Handler(rctx, params)
				turn.done()
			}
			if id == nil {
				return
			}
			c.mu.Lock()
			delete(c.inflight, key)
			c.mu.Unlock()
			if err != nil {
				c.send(reply{ID: id, Error: toWire(err)})
				return
			}
			if res == nil {
				res = struct{}{}
			}
			if msg.Framed {
				if head, b, ok := splitData(res); ok {
					c.sendFrame(reply{ID: id, Result: head}, b)
					return
				}
			}
			c.send(reply{ID: id, Result: res})
		}()
	}
}

type conn struct {
	wmu      sync.Mutex
	w        io.Writer
	frames   atomic.Bool // the client asked for frames in hello
	mu       sync.Mutex
	inflight map[string]context.CancelFunc
	tails    map[string]chan struct{} // per ordered key, the turn of the last request queued
}

func (c *conn) send(r reply) {
	buf := replyBuffers.Get().(*bytes.Buffer)
	defer putReplyBuffer(buf)
	buf.Reset()
	c.encode(buf, r)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	// A reader that went away loses its replies; the requests still end as they would.
	_, _ = c.w.Write(buf.Bytes())
}

// sendFrame sends a reply whose result's data is b, as a frame: the lead and header in one
// buffer, then b as it is, written together.
func (c *conn) sendFrame(r reply, b []byte) {
	buf := replyBuffers.Get().(*bytes.Buffer)
	defer putReplyBuffer(buf)
	buf.Reset()
	var lead [frameLead]byte
	buf.Write(lead[:])
	c.encode(buf, r)
	head := buf.Bytes()
	head = head[:len(head)-1] // the newline Encode ends with: a header has none
	AppendFrameLead(head[:0], len(head)-frameLead, len(b))
	out := net.Buffers{head, b}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, _ = out.WriteTo(c.w)
}

// encode appends r as one line to buf (after what it holds), or an error reply when r cannot be.
func (c *conn) encode(buf *bytes.Buffer, r reply) {
	r.JSONRPC = "2.0"
	r.Result = withEmptyBytes(r.Result)
	at := buf.Len()
	// One encode into a reused buffer; Encode ends the line itself, so nothing is copied again.
	if err := json.NewEncoder(buf).Encode(r); err != nil {
		buf.Truncate(at)
		json.NewEncoder(buf).Encode(reply{JSONRPC: "2.0", ID: r.ID, Error: toWire(fmt.Errorf("the reply could not be encoded: %v", err))})
	}
}

// turn is a request's place among those of one ordered key: it runs after the one before it.
type turn struct {
	after, mine chan struct{}
	release     func()
}

func (t turn) wait() {
	if t.after != nil {
		<-t.after
	}
}

func (t turn) done() {
	if t.mine != nil {
		t.release()
	}
}

// queue gives a request its turn. On a connection that asked for frames, requests of a method in
// order run one after another by their params' id, in the order they came, so a client may
// send several writes to one push, or reads of one pull, without waiting for each reply.
func (c *conn) queue(e Entry, params json.RawMessage) turn {
	if !e.InOrder || !c.frames.Load() {
		return turn{}
	}
	key := orderKey(params)
	mine := make(chan struct{})
	c.mu.Lock()
	after := c.tails[key]
	c.tails[key] = mine
	c.mu.Unlock()
	return turn{after: after, mine: mine, release: func() {
		c.mu.Lock()
		if c.tails[key] == mine {
			delete(c.tails, key)
		}
		c.mu.Unlock()
		close(mine)
	}}
}

// orderKey is the params' id member as written ("" when there is none).
func orderKey(params json.RawMessage) string {
	key := ""
	i := skipSpace(params, 0)
	if i < len(params) && params[i] == '{' {
		eachMember(params, i, 0, func(k []byte, start, end int) bool {
			if string(k) == `"id"` {
				key = string(params[start:end])
				return false
			}
			return true
		})
	}
	return key
}

var replyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// putReplyBuffer keeps buffers up to a chunk's reply; a rare bigger one is let go.
func putReplyBuffer(b *bytes.Buffer) {
	if b.Cap() <= 2*MaxLine {
		replyBuffers.Put(b)
	}
}

func (c *conn) cancel(params json.RawMessage) {
	var p struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.ID) == 0 {
		return
	}
	c.mu.Lock()
	cancel := c.inflight[string(canonicalID(p.ID))]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func validID(id json.RawMessage) bool {
	if id == nil {
		return true
	}
	switch id[0] {
	case '"', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return true
	}
	return false
}

// canonicalID re-encodes an id so that 7 and 7 with spaces around match.
func canonicalID(id json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(id, &v) != nil {
		return id
	}
	b, _ := json.Marshal(v)
	return b
}

func orNull(id json.RawMessage) json.RawMessage {
	if id == nil {
		return nullID
	}
	return id
}
