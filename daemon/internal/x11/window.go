package x11

// The requests a client with a window of its own sends (the desktop fixture).

// Window attributes and event masks CreateWindow takes here.
const (
	EventKeyPress      = 1 << 0
	EventKeyRelease    = 1 << 1
	EventButtonPress   = 1 << 2
	EventButtonRelease = 1 << 3
	EventExposure      = 1 << 15
)

// CreateWindow makes a child of the root at x, y of w by h, filled with background, with
// override-redirect (no window manager moves it) and the events in mask.
func (c *Conn) CreateWindow(x, y, w, h int, background uint32, mask uint32) uint32 {
	id := c.NewID()
	req := []byte{1, 0, 0, 0} // depth 0: the parent's
	req = put32(req, id)
	req = put32(req, c.Setup.Screen.Root)
	req = put16(req, x)
	req = put16(req, y)
	req = put16(req, w)
	req = put16(req, h)
	req = put16(req, 0) // border
	req = put16(req, 1) // InputOutput
	req = put32(req, 0) // CopyFromParent visual
	req = put32(req, 0x2|0x200|0x800)
	req = put32(req, background)
	req = put32(req, 1) // override-redirect
	req = put32(req, mask)
	c.send(req)
	return id
}

// MapWindow shows a window.
func (c *Conn) MapWindow(w uint32) { c.send(put32([]byte{8, 0, 0, 0}, w)) }

// SetInputFocus gives the keyboard to w (reverting to the pointer's root).
func (c *Conn) SetInputFocus(w uint32) {
	req := put32([]byte{42, 1, 0, 0}, w)
	c.send(put32(req, 0))
}

// CreateGC makes a graphics context on drawable d.
func (c *Conn) CreateGC(d uint32) uint32 {
	id := c.NewID()
	req := put32([]byte{55, 0, 0, 0}, id)
	req = put32(req, d)
	c.send(put32(req, 0))
	return id
}

// FillRect fills a rectangle of d with the pixel value.
func (c *Conn) FillRect(d, gc uint32, pixel uint32, x, y, w, h int) {
	req := put32([]byte{56, 0, 0, 0}, gc) // ChangeGC foreground
	req = put32(req, 0x4)
	c.send(put32(req, pixel))
	req = put32([]byte{70, 0, 0, 0}, d)
	req = put32(req, gc)
	req = put16(req, x)
	req = put16(req, y)
	req = put16(req, w)
	c.send(put16(req, h))
}
