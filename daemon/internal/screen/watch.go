package screen

import (
	"bytes"
	"context"
	"hash/crc32"
	"image"
	"image/jpeg"
	"time"

	"agentrun.dev/computerd/internal/rpc"
)

// Watch's bounds: waitMs (MAX_WATCH_WAIT_MS), and how often an unchanged screen is read again.
const (
	DefaultWaitMs   = 2000
	MaxWaitMs       = 10_000
	DefaultMaxWidth = 1280
	DefaultQuality  = 60
	pollEvery       = 50 * time.Millisecond
)

// WatchParams: after is the seq of the last frame the caller has whole.
type WatchParams struct {
	After    int  `json:"after"`
	WaitMs   *int `json:"waitMs,omitempty"`
	MaxWidth *int `json:"maxWidth,omitempty"`
	Quality  *int `json:"quality,omitempty"`
}

// WatchResult is a frame (changed), or changed false when the wait ended with the screen as it
// was. A frame's JPEG is read as a shot's: data, then id and screen.read for the rest.
type WatchResult struct {
	Seq         int       `json:"seq"`
	Changed     bool      `json:"changed"`
	Format      string    `json:"format,omitempty"`
	FrameWidth  int       `json:"frameWidth,omitempty"`
	FrameHeight int       `json:"frameHeight,omitempty"`
	Width       int       `json:"width,omitempty"`
	Height      int       `json:"height,omitempty"`
	Cursor      *[2]int   `json:"cursor,omitempty"`
	Data        rpc.Bytes `json:"data,omitempty"`
	ID          string    `json:"id,omitempty"`
	EOF         bool      `json:"eof,omitempty"`
}

func orDefault(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

// Watch answers the next frame once the screen or the pointer changed since the frame after
// names, at once for an older after, else changed false when waitMs is over. One watch at a
// time per connection.
func (s *Session) Watch(ctx context.Context, sc *Screen, p WatchParams) (WatchResult, error) {
	wait, maxWidth, quality := orDefault(p.WaitMs, DefaultWaitMs), orDefault(p.MaxWidth, DefaultMaxWidth), orDefault(p.Quality, DefaultQuality)
	switch {
	case wait < 0 || wait > MaxWaitMs:
		return WatchResult{}, rpc.Errorf(rpc.Invalid, "waitMs is 0 to %d", MaxWaitMs)
	case maxWidth < 1:
		return WatchResult{}, rpc.Errorf(rpc.Invalid, "maxWidth is 1 or more")
	case quality < 1 || quality > 100:
		return WatchResult{}, rpc.Errorf(rpc.Invalid, "quality is 1 to 100")
	}
	s.mu.Lock()
	if s.watching {
		s.mu.Unlock()
		return WatchResult{}, rpc.Errorf(rpc.Limit, "a watch is already waiting on this connection: one watch per connection")
	}
	if p.After < 0 || p.After > s.seq {
		seq := s.seq
		s.mu.Unlock()
		return WatchResult{}, rpc.Errorf(rpc.Invalid, "after %d names no frame sent: the last was %d", p.After, seq)
	}
	s.watching = true
	fresh := s.seq == 0 || p.After < s.seq
	last, lastCursor, seq := s.last, s.cursor, s.seq
	s.mu.Unlock()
	defer func() { s.mu.Lock(); s.watching = false; s.mu.Unlock() }()

	deadline := time.Now().Add(time.Duration(wait) * time.Millisecond)
	for {
		img, cursor, err := sc.capture(ctx, nil)
		if err != nil {
			return WatchResult{}, err
		}
		sum := crc32.ChecksumIEEE(img.Pix)
		if fresh || sum != last || cursor != lastCursor {
			return s.frameOf(img, cursor, sum, maxWidth, quality)
		}
		if !time.Now().Add(pollEvery).Before(deadline) {
			return WatchResult{Seq: seq, Changed: false}, nil
		}
		t := time.NewTimer(pollEvery)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return WatchResult{}, rpc.Errorf(rpc.Aborted, "the watch was cancelled")
		}
	}
}

func (s *Session) frameOf(img *image.RGBA, cursor [2]int, sum uint32, maxWidth, quality int) (WatchResult, error) {
	frame := scaled(img, maxWidth)
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, frame, &jpeg.Options{Quality: quality}); err != nil {
		return WatchResult{}, err
	}
	chunk, rest := first(buf.Bytes())
	s.mu.Lock()
	s.seq++
	s.last, s.cursor, s.frame = sum, cursor, rest
	res := WatchResult{Seq: s.seq, Changed: true, Format: "jpeg", FrameWidth: frame.Rect.Dx(), FrameHeight: frame.Rect.Dy(),
		Width: img.Rect.Dx(), Height: img.Rect.Dy(), Cursor: &cursor, Data: chunk, EOF: rest == nil}
	s.mu.Unlock()
	if rest != nil {
		res.ID = rest.id
	}
	return res, nil
}

// scaled is img at most maxWidth wide, its aspect kept, each pixel the nearest source pixel.
func scaled(img *image.RGBA, maxWidth int) *image.RGBA {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if w <= maxWidth {
		return img
	}
	fh := max(1, (h*maxWidth+w/2)/w)
	out := image.NewRGBA(image.Rect(0, 0, maxWidth, fh))
	for y := 0; y < fh; y++ {
		sy := y * h / fh
		for x := 0; x < maxWidth; x++ {
			sx := x * w / maxWidth
			copy(out.Pix[y*out.Stride+4*x:y*out.Stride+4*x+4], img.Pix[sy*img.Stride+4*sx:])
		}
	}
	return out
}
