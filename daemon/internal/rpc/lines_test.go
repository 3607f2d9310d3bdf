package rpc

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// reference splits input the slow way: each newline-ended piece (and a last one without) is a
// line, or too long when it holds more than max bytes.
func reference(input []byte, max int) []string {
	var out []string
	pieces := bytes.Split(input, []byte("\n"))
	if len(pieces[len(pieces)-1]) == 0 {
		pieces = pieces[:len(pieces)-1]
	}
	for _, p := range pieces {
		if len(p) > max {
			out = append(out, "<too long>")
			continue
		}
		out = append(out, string(bytes.TrimSuffix(p, []byte("\r"))))
	}
	return out
}

func readAll(r io.Reader, max int) ([]string, error) {
	lr := NewLineReader(r, max)
	var out []string
	for {
		line, err := lr.Next()
		switch {
		case errors.Is(err, io.EOF):
			return out, nil
		case errors.Is(err, ErrLineTooLong):
			out = append(out, "<too long>")
		case err != nil:
			return out, err
		default:
			if len(line) > max {
				return out, errors.New("a line past the bound was returned")
			}
			out = append(out, string(line))
		}
	}
}

func TestLineReaderSkipsALongLineAndGoesOn(t *testing.T) {
	in := "short\n" + strings.Repeat("x", 100) + "\nnext\r\nlast"
	got, err := readAll(iotest.OneByteReader(strings.NewReader(in)), 10)
	if err != nil || strings.Join(got, "|") != "short|<too long>|next|last" {
		t.Fatalf("got %q, %v", got, err)
	}
	got, _ = readAll(strings.NewReader(strings.Repeat("y", MaxLine)+"\n"+strings.Repeat("z", MaxLine+1)+"\n"), MaxLine)
	if len(got) != 2 || len(got[0]) != MaxLine || got[1] != "<too long>" {
		t.Fatalf("a line of exactly 1 MiB must pass and one byte more must not")
	}
}

// FuzzLineReader: the reader agrees with the slow split on any input and any chunking, and
// never returns a line past its bound.
func FuzzLineReader(f *testing.F) {
	f.Add([]byte("a\nb\n"), uint8(4))
	f.Fuzz(func(t *testing.T, input []byte, max uint8) {
		m := int(max%64) + 1
		want := reference(input, m)
		for _, r := range []io.Reader{bytes.NewReader(input), iotest.OneByteReader(bytes.NewReader(input)), iotest.HalfReader(bytes.NewReader(input))} {
			got, err := readAll(r, m)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\x00|") != strings.Join(want, "\x00|") {
				t.Fatalf("max %d, input %q: got %q, want %q", m, input, got, want)
			}
		}
	})
}
