package screen

import (
	"context"
	"image"

	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/x11"
)

// Region is a rectangle of the screen, in its pixels.
type Region struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// ShotParams: the whole root window, or a region inside it.
type ShotParams struct {
	Region *Region `json:"region,omitempty"`
}

// ShotResult is the PNG's first chunk (id names the rest for screen.read), the image's size,
// its scale (1: never downscaled) and the pointer.
type ShotResult struct {
	Data   rpc.Bytes `json:"data"`
	ID     string    `json:"id,omitempty"`
	EOF    bool      `json:"eof"`
	Width  int       `json:"width"`
	Height int       `json:"height"`
	Scale  float64   `json:"scale"`
	Cursor *[2]int   `json:"cursor,omitempty"`
}

// Screen is the screen methods on the daemon's display.
type Screen struct{ display *x11.Display }

// New serves the screen of display.
func New(display *x11.Display) *Screen { return &Screen{display: display} }

// capture reads a rectangle (the whole root when r is nil) and the pointer.
func (sc *Screen) capture(ctx context.Context, r *Region) (*image.RGBA, [2]int, error) {
	var img *image.RGBA
	var cursor [2]int
	err := sc.display.Do(ctx, func(c *x11.Conn, _ int) error {
		s := c.Setup.Screen
		x, y, w, h := 0, 0, s.Width, s.Height
		if r != nil {
			if r.X < 0 || r.Y < 0 || r.Width < 1 || r.Height < 1 || r.X+r.Width > s.Width || r.Y+r.Height > s.Height {
				return rpc.Errorf(rpc.Invalid, "the region %dx%d at %d,%d is not inside the screen, which is %dx%d", r.Width, r.Height, r.X, r.Y, s.Width, s.Height)
			}
			x, y, w, h = r.X, r.Y, r.Width, r.Height
		}
		im, err := c.GetImage(x, y, w, h)
		if err != nil {
			return err
		}
		p, err := c.QueryPointer()
		if err != nil {
			return err
		}
		img, cursor = im.RGBA(), [2]int{p.X, p.Y}
		return nil
	})
	return img, cursor, x11.RPCError(err)
}

// Shot takes a PNG of the screen and holds it on the connection until read to its end or the
// next shot.
func (s *Session) Shot(ctx context.Context, sc *Screen, p ShotParams) (ShotResult, error) {
	img, cursor, err := sc.capture(ctx, p.Region)
	if err != nil {
		return ShotResult{}, err
	}
	data := encodePNG(img)
	chunk, rest := first(data)
	s.mu.Lock()
	s.shot = rest
	s.mu.Unlock()
	res := ShotResult{Data: chunk, EOF: rest == nil, Width: img.Rect.Dx(), Height: img.Rect.Dy(), Scale: 1, Cursor: &cursor}
	if rest != nil {
		res.ID = rest.id
	}
	return res, nil
}
