package rpc

import (
	"bytes"
	"errors"
	"io"
	"sync/atomic"
	"testing"
	"testing/iotest"
)

func frame(head string, b []byte) []byte {
	return append(append(AppendFrameLead(nil, len(head), len(b)), head...), b...)
}

func on() *atomic.Bool {
	var f atomic.Bool
	f.Store(true)
	return &f
}

// readMessages reads every message of input, a too-long or empty one as a marker, until the end
// or the first error that ends the connection.
func readMessages(r io.Reader, frames *atomic.Bool) ([]string, error) {
	lr := NewLineReader(r, 64)
	var out []string
	for {
		m, err := lr.NextMessage(frames)
		switch {
		case errors.Is(err, io.EOF):
			return out, nil
		case errors.Is(err, ErrLineTooLong), errors.Is(err, ErrFrameHeadTooLong):
			out = append(out, "<too long>")
		case errors.Is(err, ErrFrameHeadEmpty):
			out = append(out, "<no header>")
		case err != nil:
			return out, err
		case m.Over > 0:
			out = append(out, "frame "+string(m.Head)+" <over>")
		case m.Framed:
			out = append(out, "frame "+string(m.Head)+" "+string(m.Bytes))
		default:
			out = append(out, "line "+string(m.Head))
		}
	}
}

func TestFramesAndLinesMixOnOneConnection(t *testing.T) {
	input := bytes.Join([][]byte{
		[]byte("{\"a\":1}\n"),
		frame(`{"b":2}`, []byte("bytes\n\x00with anything")),
		frame(`{"c":3}`, nil),
		[]byte("{\"d\":4}\n"),
	}, nil)
	got, err := readMessages(bytes.NewReader(input), on())
	want := []string{`line {"a":1}`, "frame {\"b\":2} bytes\n\x00with anything", `frame {"c":3} `, `line {"d":4}`}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %q, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("message %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

func TestAFrameIsALineUntilFramesAreOn(t *testing.T) {
	var off atomic.Bool
	got, _ := readMessages(bytes.NewReader(append(frame(`{}`, []byte("x")), '\n')), &off)
	if len(got) != 1 || got[0] != "line "+string(frame(`{}`, []byte("x"))) {
		t.Fatalf("with frames off: %q", got)
	}
}

func TestABadFrameIsSkippedWholeAndTheNextMessageReads(t *testing.T) {
	long := make([]byte, 65)
	for i := range long {
		long[i] = 'a'
	}
	over := AppendFrameLead(nil, 2, MaxFrameBytes+1)
	over = append(append(over, "{}"...), make([]byte, MaxFrameBytes+1)...)
	input := bytes.Join([][]byte{
		frame(string(long), []byte("skipped")),
		frame("", []byte("skipped too")),
		over,
		[]byte("{\"next\":1}\n"),
	}, nil)
	got, err := readMessages(bytes.NewReader(input), on())
	want := []string{"<too long>", "<no header>", "frame {} <over>", `line {"next":1}`}
	if err != nil || len(got) != len(want) {
		t.Fatalf("got %q, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("message %d: got %q, want %q", i, got[i], want[i])
		}
	}
}

func TestInputEndingInsideAFrameEndsTheConnection(t *testing.T) {
	whole := frame(`{"a":1}`, []byte("12345"))
	for cut := 1; cut < len(whole); cut++ {
		_, err := readMessages(bytes.NewReader(whole[:cut]), on())
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
	}
}

// FuzzFrameReader: on any input, in any chunking, the reader never panics, never gives a
// header past its bound or bytes past MaxFrameBytes, and reads the same messages; a frame
// written with AppendFrameLead reads back as it was written.
func FuzzFrameReader(f *testing.F) {
	f.Add(frame(`{"id":1}`, []byte("abc")), []byte("x"))
	f.Add([]byte("{}\n\x00\x00\x00\x00\x02\x00\x00\x00\x01{}z"), []byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}, []byte{0})
	f.Fuzz(func(t *testing.T, input, payload []byte) {
		var first []string
		for n, r := range []io.Reader{bytes.NewReader(input), iotest.OneByteReader(bytes.NewReader(input)), iotest.HalfReader(bytes.NewReader(input))} {
			lr := NewLineReader(r, 64)
			var got []string
			for {
				m, err := lr.NextMessage(on())
				if err != nil && !errors.Is(err, ErrLineTooLong) && !errors.Is(err, ErrFrameHeadTooLong) && !errors.Is(err, ErrFrameHeadEmpty) {
					break
				}
				if len(m.Head) > 64 || len(m.Bytes) > MaxFrameBytes || (m.Over > 0 && m.Bytes != nil) {
					t.Fatalf("a message past its bounds: head %d bytes, %d bytes, over %d", len(m.Head), len(m.Bytes), m.Over)
				}
				got = append(got, string(m.Head)+"|"+string(m.Bytes))
			}
			if n == 0 {
				first = got
			} else if len(got) != len(first) {
				t.Fatalf("reader %d read %d messages, the first %d", n, len(got), len(first))
			}
		}
		head := `{"n":` + string(rune('0'+len(payload)%10)) + `}`
		m, err := NewLineReader(bytes.NewReader(frame(head, payload)), 64).NextMessage(on())
		if err != nil || !m.Framed || string(m.Head) != head || !bytes.Equal(m.Bytes, payload) {
			t.Fatalf("a frame read back as %q %q, %v", m.Head, m.Bytes, err)
		}
	})
}
