package rpc

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// A frame carries one message with its data member's bytes as they are, not as base64: past
// the spec's wire, used only on a connection whose client asked for frames in hello.
//
//	0x00                       FrameMark: no line starts with it
//	uint32, big-endian         the header's length, 1 to MaxLine
//	uint32, big-endian         the bytes' length, 0 to MaxFrameBytes
//	header                     the message as JSON, its data member "" (a request's params.data,
//	                           a reply's result.data)
//	bytes                      that data member's value
//
// Lines and frames mix on the connection; a frame needs no newline after it.
const (
	// FrameMark opens a frame. JSON text never starts with it, so a line cannot.
	FrameMark = 0x00
	// FrameVersion is the frame format hello offers and a client asks for.
	FrameVersion = 1
	// frameLead is the mark and the two lengths.
	frameLead = 9
	// MaxFrameBytes is the most bytes one frame carries, as a line carries at most 1 MiB.
	MaxFrameBytes = 1 << 20
)

var (
	// ErrFrameHeadTooLong is a header past MaxLine; its frame was skipped whole.
	ErrFrameHeadTooLong = errors.New("the frame's header is over 1 MiB (1048576 bytes); send a shorter request")
	// ErrFrameHeadEmpty is a frame with no header; its bytes were skipped.
	ErrFrameHeadEmpty = errors.New("the frame has no header: a frame carries a JSON-RPC message")
)

// errFrameBytesTooLong answers a frame whose bytes were skipped for their length.
func errFrameBytesTooLong(n uint32) error {
	return Errorf(Limit, "the frame carries %d bytes, over the %d (1 MiB) one frame may: send them in smaller chunks", n, MaxFrameBytes)
}

// Message is one message read: a line, or a frame's header and bytes.
type Message struct {
	// Head is the line, or the frame's header; valid until the next read.
	Head []byte
	// Framed says the message came as a frame.
	Framed bool
	// Bytes are the frame's own (the caller may keep them); nil for a line.
	Bytes []byte
	// Over is a frame whose bytes were past MaxFrameBytes: skipped, Bytes nil, Head kept to
	// answer it.
	Over uint32
}

// NextMessage reads the next line, or once frames is on, the next line or frame. frames is read
// when the message's first byte has come, so a switch made while the reader waited holds.
func (l *LineReader) NextMessage(frames *atomic.Bool) (Message, error) {
	if b, err := l.r.Peek(1); err == nil && b[0] == FrameMark && frames.Load() {
		return l.nextFrame()
	}
	line, err := l.Next()
	return Message{Head: line}, err
}

func (l *LineReader) nextFrame() (Message, error) {
	lead, err := l.r.Peek(frameLead)
	if err != nil {
		return Message{}, truncated(err)
	}
	headLen := binary.BigEndian.Uint32(lead[1:5])
	n := binary.BigEndian.Uint32(lead[5:9])
	l.r.Discard(frameLead)
	switch {
	case headLen == 0:
		return Message{}, skip(l.r, int64(n), ErrFrameHeadEmpty)
	case headLen > uint32(l.max):
		return Message{}, skip(l.r, int64(headLen)+int64(n), ErrFrameHeadTooLong)
	}
	if cap(l.buf) < int(headLen) {
		l.buf = make([]byte, headLen)
	}
	l.buf = l.buf[:headLen]
	if _, err := io.ReadFull(l.r, l.buf); err != nil {
		return Message{}, truncated(err)
	}
	m := Message{Head: l.buf, Framed: true}
	if n > MaxFrameBytes {
		m.Over = n
		return m, skip(l.r, int64(n), nil)
	}
	// Each frame's bytes are its own: a handler keeps them (a push queues them).
	m.Bytes = make([]byte, n)
	if _, err := io.ReadFull(l.r, m.Bytes); err != nil {
		return Message{}, truncated(err)
	}
	return m, nil
}

// skip drops n bytes and answers then (nil for none), or how the input ended first.
func skip(r *bufio.Reader, n int64, then error) error {
	if _, err := io.CopyN(io.Discard, r, n); err != nil {
		return truncated(err)
	}
	return then
}

// truncated: input that ends inside a frame ends the connection as a broken one.
func truncated(err error) error {
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("the input ended inside a frame: %w", io.ErrUnexpectedEOF)
	}
	return err
}

// AppendFrameLead appends a frame's mark and lengths.
func AppendFrameLead(b []byte, headLen, n int) []byte {
	b = append(b, FrameMark)
	b = binary.BigEndian.AppendUint32(b, uint32(headLen))
	return binary.BigEndian.AppendUint32(b, uint32(n))
}
