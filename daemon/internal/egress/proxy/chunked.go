package proxy

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
)

const maxChunkLine = 4096

var errChunk = errors.New("the chunked body is not framed as HTTP/1.1 says")

// copyChunked copies one chunked body as sent, chunk by chunk, up to and with its last chunk
// and trailers: nothing the client sends after it reaches the upstream.
func copyChunked(w io.Writer, r *bufio.Reader) error {
	for {
		line, err := chunkLine(r)
		if err != nil {
			return err
		}
		sizeText, _, _ := strings.Cut(strings.TrimRight(line, "\r\n"), ";")
		size, err := strconv.ParseUint(strings.TrimSpace(sizeText), 16, 62)
		if err != nil || strings.TrimSpace(sizeText) == "" {
			return errChunk
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
		if size == 0 {
			// Trailers, then the empty line that ends the body.
			for {
				t, err := chunkLine(r)
				if err != nil {
					return err
				}
				if _, err := io.WriteString(w, t); err != nil {
					return err
				}
				if t == "\r\n" || t == "\n" {
					return nil
				}
			}
		}
		if _, err := io.CopyN(w, r, int64(size)); err != nil {
			return err
		}
		end, err := chunkLine(r)
		if err != nil {
			return err
		}
		if end != "\r\n" && end != "\n" {
			return errChunk
		}
		if _, err := io.WriteString(w, end); err != nil {
			return err
		}
	}
}

// chunkLine reads one line with its ending, at most maxChunkLine bytes.
func chunkLine(r *bufio.Reader) (string, error) {
	var b []byte
	for {
		frag, err := r.ReadSlice('\n')
		b = append(b, frag...)
		if len(b) > maxChunkLine {
			return "", errChunk
		}
		if err == nil {
			return string(b), nil
		}
		if err != bufio.ErrBufferFull {
			return "", err
		}
	}
}
