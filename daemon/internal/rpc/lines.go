package rpc

import (
	"bufio"
	"errors"
	"io"
)

// MaxLine is the longest line either side sends: 1 MiB, its newline excluded.
const MaxLine = 1 << 20

// ErrLineTooLong is a line past MaxLine; the reader has skipped to its end, so the next line reads.
var ErrLineTooLong = errors.New("the line is over 1 MiB (1048576 bytes); send a shorter request")

// LineReader reads newline-ended lines of at most MaxLine bytes without holding a longer one.
type LineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

// NewLineReader reads lines of at most max bytes from r.
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Next returns the next line without its newline (valid until the next call), ErrLineTooLong
// for a line past the bound, or io.EOF at the end. A last line without a newline still counts.
func (l *LineReader) Next() ([]byte, error) {
	l.buf = l.buf[:0]
	over := false
	for {
		chunk, err := l.r.ReadSlice('\n')
		if !over {
			l.buf = append(l.buf, chunk...)
			if n := len(l.buf); n > l.max+1 || (n == l.max+1 && l.buf[n-1] != '\n') {
				over = true
				l.buf = l.buf[:0]
			}
		}
		switch {
		case err == nil:
			if over {
				return nil, ErrLineTooLong
			}
			return trimCR(l.buf[:len(l.buf)-1]), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if over {
				return nil, ErrLineTooLong
			}
			if len(l.buf) > 0 {
				return trimCR(l.buf), nil
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}
