package screen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"

	"agentrun.dev/computerd/internal/rpc"
)

// MaxChunk is the most image bytes one reply carries (MAX_CHUNK_BYTES).
const MaxChunk = 512 << 10

// held is an image a connection reads in chunks: its shot, or its watch's frame.
type held struct {
	id   string
	data []byte
}

// Session is one connection's screen state: one shot held, one watch.
type Session struct {
	mu       sync.Mutex
	shot     *held
	frame    *held
	watching bool
	seq      int
	last     uint32 // the last frame's pixels, hashed, and its cursor
	cursor   [2]int
}

// NewSession starts a connection's screen state.
func NewSession() *Session { return &Session{} }

// Close lets go of what the connection held.
func (s *Session) Close() {
	s.mu.Lock()
	s.shot, s.frame = nil, nil
	s.mu.Unlock()
}

// newID names a held image; it is the connection's own, so it needs to be unique, not secret.
func newID() string { return fmt.Sprintf("%016x", rand.Uint64()) }

// first is the first chunk of data, and the held image for the rest (nil when it all fits).
func first(data []byte) ([]byte, *held) {
	if len(data) <= MaxChunk {
		return data, nil
	}
	return data[:MaxChunk], &held{id: newID(), data: data}
}

// ReadParams names a held image and where to read from.
type ReadParams struct {
	ID     string `json:"id"`
	Offset int    `json:"offset"`
}

// ReadResult is one chunk; eof at the image's end, which lets it go.
type ReadResult struct {
	Data rpc.Bytes `json:"data"`
	EOF  bool      `json:"eof"`
}

// Read gives the chunk of the held shot or frame named by id from offset.
func (s *Session) Read(_ context.Context, p ReadParams) (ReadResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	slot := &s.shot
	if s.frame != nil && s.frame.id == p.ID {
		slot = &s.frame
	}
	h := *slot
	if h == nil || h.id != p.ID {
		return ReadResult{}, rpc.Errorf(rpc.NotFound, "no image %q is held on this connection: a connection holds its last shot (and its watch's last frame) until read to its end", p.ID)
	}
	if p.Offset < 0 || p.Offset > len(h.data) {
		return ReadResult{}, rpc.Errorf(rpc.Invalid, "offset %d is past the image's %d bytes", p.Offset, len(h.data))
	}
	end := min(p.Offset+MaxChunk, len(h.data))
	res := ReadResult{Data: h.data[p.Offset:end], EOF: end == len(h.data)}
	if res.EOF {
		*slot = nil
	}
	return res, nil
}
