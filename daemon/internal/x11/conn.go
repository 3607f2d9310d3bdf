package x11

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// RoundTrip bounds one exchange with the server: a server that holds a reply longer is gone.
const RoundTrip = 10 * time.Second

// maxEvent bounds a generic event's extra bytes; the daemon asks for none.
const maxEvent = 64 << 10

// ErrGone says the connection broke (or the server broke the protocol): it cannot be used again.
var ErrGone = errors.New("the X display went away")

// Error is an X protocol error reply.
type Error struct {
	Code  uint8
	Seq   uint16
	Value uint32
	Major uint8
	Minor uint16
}

var errorNames = map[uint8]string{1: "Request", 2: "Value", 3: "Window", 4: "Pixmap", 5: "Atom", 6: "Cursor", 7: "Font",
	8: "Match", 9: "Drawable", 10: "Access", 11: "Alloc", 12: "Colormap", 13: "GContext", 14: "IDChoice", 15: "Name",
	16: "Length", 17: "Implementation"}

func (e *Error) Error() string {
	name := errorNames[e.Code]
	if name == "" {
		name = fmt.Sprintf("code %d", e.Code)
	}
	return fmt.Sprintf("the X server answered a %s error (request %d.%d, value %d)", name, e.Major, e.Minor, e.Value)
}

// Conn is one connection to an X server. It is not safe for concurrent use: its owner (the
// daemon's Display, or the fixture's loop) holds it one caller at a time.
type Conn struct {
	c       net.Conn
	Setup   *Setup
	seq     uint16
	buf     []byte   // requests not yet written
	pending []*Error // errors for requests that have no reply, seen while reading
	events  [][]byte // events kept for NextEvent (only when KeepEvents)
	nextID  uint32
	broken  error
	// KeepEvents queues events for NextEvent; the daemon drops them, noting only MappingNotify.
	KeepEvents bool
	// MappingChanged is set when a MappingNotify arrives: a keyboard map read before is stale.
	MappingChanged bool
	xtest          uint8 // XTEST's major opcode, 0 when not asked for or not there
}

// Dial connects to the display at addr, authenticating with cookie when there is one.
func Dial(addr Address, cookie *Cookie) (*Conn, error) {
	nc, err := net.DialTimeout(addr.Network, addr.Addr, RoundTrip)
	if err != nil {
		return nil, fmt.Errorf("nothing answers on the display's %s socket %s: %w", addr.Network, addr.Addr, err)
	}
	c := &Conn{c: nc}
	if err := c.handshake(cookie); err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// NewConn sets up an X connection over an open stream (a test's fake server).
func NewConn(nc net.Conn, cookie *Cookie) (*Conn, error) {
	c := &Conn{c: nc}
	if err := c.handshake(cookie); err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

func (c *Conn) handshake(cookie *Cookie) error {
	var name string
	var data []byte
	if cookie != nil {
		name, data = cookie.Name, cookie.Data
	}
	req := make([]byte, 12, 12+pad4(len(name))+pad4(len(data)))
	req[0] = 'l' // little-endian: every reply comes back so
	binary.LittleEndian.PutUint16(req[2:], 11)
	binary.LittleEndian.PutUint16(req[6:], uint16(len(name)))
	binary.LittleEndian.PutUint16(req[8:], uint16(len(data)))
	req = append(req, padded([]byte(name))...)
	req = append(req, padded(data)...)
	c.c.SetDeadline(time.Now().Add(RoundTrip))
	defer c.c.SetDeadline(time.Time{})
	if _, err := c.c.Write(req); err != nil {
		return fmt.Errorf("the X server: %w", err)
	}
	var head [8]byte
	if _, err := io.ReadFull(c.c, head[:]); err != nil {
		return fmt.Errorf("the X server closed the connection at setup: %w", err)
	}
	// The length is in 4-byte units of a 16-bit count, so at most 256 KiB: bounded by the wire.
	body := make([]byte, 4*int(binary.LittleEndian.Uint16(head[6:])))
	if _, err := io.ReadFull(c.c, body); err != nil {
		return fmt.Errorf("the X server's setup reply is cut short: %w", err)
	}
	switch head[0] {
	case 1:
	case 0:
		reason := body
		if n := int(head[1]); n <= len(reason) {
			reason = reason[:n]
		}
		return fmt.Errorf("the X server refused the connection: %q", printable(reason))
	default:
		return fmt.Errorf("the X server asks for more authentication than a cookie: refused")
	}
	s, err := parseSetup(body)
	if err != nil {
		return err
	}
	c.Setup = s
	return nil
}

// printable keeps a server's words short and plain.
func printable(b []byte) string {
	if len(b) > 200 {
		b = b[:200]
	}
	out := make([]byte, 0, len(b))
	for _, ch := range b {
		if ch >= 0x20 && ch < 0x7f {
			out = append(out, ch)
		}
	}
	return string(out)
}

func padded(b []byte) []byte {
	return append(b[:len(b):len(b)], make([]byte, pad4(len(b))-len(b))...)
}

// Close ends the connection.
func (c *Conn) Close() error { return c.c.Close() }

// Broken is the error that ended the connection, nil while it works.
func (c *Conn) Broken() error { return c.broken }

func (c *Conn) breakWith(err error) error {
	if c.broken == nil {
		c.broken = fmt.Errorf("%w: %v", ErrGone, err)
		c.c.Close()
	}
	return c.broken
}

// NewID allocates a resource id.
func (c *Conn) NewID() uint32 {
	c.nextID++
	return c.Setup.ResourceBase | (c.nextID & c.Setup.ResourceMask)
}

// send queues one request (its length filled in here) and returns its sequence number.
func (c *Conn) send(req []byte) uint16 {
	for len(req)%4 != 0 {
		req = append(req, 0)
	}
	binary.LittleEndian.PutUint16(req[2:], uint16(len(req)/4))
	c.buf = append(c.buf, req...)
	c.seq++
	return c.seq
}

// Flush writes every queued request.
func (c *Conn) Flush() error {
	if c.broken != nil {
		return c.broken
	}
	if len(c.buf) == 0 {
		return nil
	}
	c.c.SetWriteDeadline(time.Now().Add(RoundTrip))
	_, err := c.c.Write(c.buf)
	c.buf = c.buf[:0]
	if err != nil {
		return c.breakWith(err)
	}
	return nil
}

// reply flushes, then reads until the reply to seq, which may carry at most max bytes past its
// 32-byte head: a longer one ends the connection before anything is allocated for it. An X
// error for seq is returned as *Error; errors for earlier requests are kept for Sync.
func (c *Conn) reply(seq uint16, max int) ([]byte, error) {
	if err := c.Flush(); err != nil {
		return nil, err
	}
	c.c.SetReadDeadline(time.Now().Add(RoundTrip))
	defer c.c.SetReadDeadline(time.Time{})
	for {
		var head [32]byte
		if _, err := io.ReadFull(c.c, head[:]); err != nil {
			return nil, c.breakWith(err)
		}
		got := binary.LittleEndian.Uint16(head[2:])
		switch head[0] {
		case 0:
			e := &Error{Code: head[1], Seq: got, Value: binary.LittleEndian.Uint32(head[4:]), Minor: binary.LittleEndian.Uint16(head[8:]), Major: head[10]}
			if got == seq {
				return nil, e
			}
			c.pending = append(c.pending, e)
		case 1:
			extra := int64(binary.LittleEndian.Uint32(head[4:])) * 4
			if got != seq {
				return nil, c.breakWith(fmt.Errorf("a reply to request %d came while %d was awaited", got, seq))
			}
			if extra > int64(max) {
				return nil, c.breakWith(fmt.Errorf("a reply of %d bytes came where at most %d could", extra, max))
			}
			out := make([]byte, 32+extra)
			copy(out, head[:])
			if _, err := io.ReadFull(c.c, out[32:]); err != nil {
				return nil, c.breakWith(err)
			}
			return out, nil
		default:
			if err := c.event(head[:]); err != nil {
				return nil, err
			}
		}
	}
}

// event takes one event whose first 32 bytes are head, reading a generic event's rest.
func (c *Conn) event(head []byte) error {
	ev := append([]byte(nil), head...)
	if head[0]&0x7f == 35 { // GenericEvent: more bytes follow
		extra := int64(binary.LittleEndian.Uint32(head[4:])) * 4
		if extra > maxEvent {
			return c.breakWith(fmt.Errorf("a generic event of %d bytes", extra))
		}
		more := make([]byte, extra)
		if _, err := io.ReadFull(c.c, more); err != nil {
			return c.breakWith(err)
		}
		ev = append(ev, more...)
	}
	if head[0]&0x7f == MappingNotify {
		c.MappingChanged = true
	}
	if c.KeepEvents {
		c.events = append(c.events, ev)
	}
	return nil
}

// Sync waits for the server to have handled every request sent (one round trip) and returns the
// first X error any of them drew.
func (c *Conn) Sync() error {
	seq := c.send([]byte{43, 0, 0, 0}) // GetInputFocus: the cheapest request with a reply
	if _, err := c.reply(seq, 0); err != nil {
		return err
	}
	if len(c.pending) > 0 {
		e := c.pending[0]
		c.pending = nil
		return e
	}
	return nil
}

// NextEvent returns the next event (32 bytes, or more for a generic event), waiting up to d.
// It is for a client that keeps events (KeepEvents).
func (c *Conn) NextEvent(d time.Duration) ([]byte, error) {
	if len(c.events) > 0 {
		ev := c.events[0]
		c.events = c.events[1:]
		return ev, nil
	}
	if err := c.Flush(); err != nil {
		return nil, err
	}
	for {
		c.c.SetReadDeadline(time.Now().Add(d))
		var head [32]byte
		_, err := io.ReadFull(c.c, head[:])
		c.c.SetReadDeadline(time.Time{})
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return nil, err
			}
			return nil, c.breakWith(err)
		}
		switch head[0] {
		case 0:
			c.pending = append(c.pending, &Error{Code: head[1], Seq: binary.LittleEndian.Uint16(head[2:]), Value: binary.LittleEndian.Uint32(head[4:]), Minor: binary.LittleEndian.Uint16(head[8:]), Major: head[10]})
			continue
		case 1:
			return nil, c.breakWith(fmt.Errorf("a reply came where none was awaited"))
		}
		keep := c.KeepEvents
		c.KeepEvents = true
		err = c.event(head[:])
		c.KeepEvents = keep
		if err != nil {
			return nil, err
		}
		ev := c.events[len(c.events)-1]
		c.events = c.events[:len(c.events)-1]
		return ev, nil
	}
}
