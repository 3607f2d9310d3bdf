package x11

import (
	"encoding/binary"
	"fmt"
)

// Event codes the clients here read.
const (
	KeyPress      = 2
	KeyRelease    = 3
	ButtonPress   = 4
	ButtonRelease = 5
	MotionNotify  = 6
	Expose        = 12
	MappingNotify = 34
)

// Modifier bits in an event's or a pointer's state.
const (
	ShiftMask = 1 << 0
	LockMask  = 1 << 1
)

var le = binary.LittleEndian

func put16(b []byte, v int) []byte    { return le.AppendUint16(b, uint16(v)) }
func put32(b []byte, v uint32) []byte { return le.AppendUint32(b, v) }

// QueryExtension gives an extension's major opcode, 0 when the server lacks it.
func (c *Conn) QueryExtension(name string) (uint8, error) {
	req := []byte{98, 0, 0, 0}
	req = put16(req, len(name))
	req = append(req, 0, 0)
	req = append(req, padded([]byte(name))...)
	rep, err := c.reply(c.send(req), 0)
	if err != nil {
		return 0, err
	}
	if rep[8] == 0 {
		return 0, nil
	}
	return rep[9], nil
}

// UseXTEST finds the XTEST extension; an error says the server lacks it.
func (c *Conn) UseXTEST() error {
	if c.xtest != 0 {
		return nil
	}
	op, err := c.QueryExtension("XTEST")
	if err != nil {
		return err
	}
	if op == 0 {
		return fmt.Errorf("the X server has no XTEST extension, so no input can be sent")
	}
	c.xtest = op
	return nil
}

// FakeInput sends one XTEST event: a key or button press or release (detail the keycode or
// button), or an absolute pointer move to x, y on the root window. It has no reply; Sync says
// whether the server took it.
func (c *Conn) FakeInput(typ, detail uint8, x, y int) {
	req := []byte{c.xtest, 2, 0, 0, typ, detail, 0, 0}
	req = put32(req, 0) // CurrentTime
	root := uint32(0)
	if typ == MotionNotify {
		root = c.Setup.Screen.Root
	}
	req = put32(req, root)
	req = append(req, make([]byte, 8)...)
	req = put16(req, x)
	req = put16(req, y)
	req = append(req, make([]byte, 8)...)
	c.send(req)
}

// Pointer is where the pointer is on the root window, and the modifier and button state.
type Pointer struct {
	X, Y int
	Mask uint16
}

// QueryPointer reads the pointer on the root window.
func (c *Conn) QueryPointer() (Pointer, error) {
	req := put32([]byte{38, 0, 0, 0}, c.Setup.Screen.Root)
	rep, err := c.reply(c.send(req), 0)
	if err != nil {
		return Pointer{}, err
	}
	return Pointer{X: int(int16(le.Uint16(rep[16:]))), Y: int(int16(le.Uint16(rep[18:]))), Mask: le.Uint16(rep[24:])}, nil
}

// Image is a ZPixmap as the server sent it.
type Image struct {
	Width, Height int
	Depth         uint8
	BitsPerPixel  int
	Stride        int
	MSBFirst      bool
	Visual        Visual
	Data          []byte
}

// GetImage reads a rectangle of the root window as a ZPixmap (24 or 32 bits a pixel). The reply
// may carry no more than the rectangle's bytes.
func (c *Conn) GetImage(x, y, w, h int) (*Image, error) {
	s := c.Setup
	f, _ := s.FormatOf(s.Screen.RootDepth)
	if f.BitsPerPixel != 24 && f.BitsPerPixel != 32 {
		return nil, fmt.Errorf("the display's pixels are %d bits; only 24 and 32 are read", f.BitsPerPixel)
	}
	if s.Screen.Visual.RedMask == 0 {
		return nil, fmt.Errorf("the display's root visual is not true colour")
	}
	stride := (w*int(f.BitsPerPixel) + int(f.ScanlinePad) - 1) / int(f.ScanlinePad) * int(f.ScanlinePad) / 8
	req := []byte{73, 2, 0, 0} // ZPixmap
	req = put32(req, s.Screen.Root)
	req = put16(req, x)
	req = put16(req, y)
	req = put16(req, w)
	req = put16(req, h)
	req = put32(req, 0xffffffff)
	rep, err := c.reply(c.send(req), pad4(stride*h))
	if err != nil {
		return nil, err
	}
	data := rep[32:]
	if len(data) < stride*h {
		return nil, c.breakWith(fmt.Errorf("an image of %d bytes where %d were due", len(data), stride*h))
	}
	return &Image{Width: w, Height: h, Depth: rep[1], BitsPerPixel: int(f.BitsPerPixel), Stride: stride, MSBFirst: s.ImageMSBFirst, Visual: s.Screen.Visual, Data: data[:stride*h]}, nil
}

// KeyboardMap is the server's keysyms, PerKeycode of them for each keycode from First.
type KeyboardMap struct {
	First      uint8
	PerKeycode int
	Keysyms    []uint32
}

// Keysyms gives keycode's keysyms (NoSymbol is 0).
func (m *KeyboardMap) Of(keycode uint8) []uint32 {
	i := (int(keycode) - int(m.First)) * m.PerKeycode
	if keycode < m.First || i+m.PerKeycode > len(m.Keysyms) {
		return nil
	}
	return m.Keysyms[i : i+m.PerKeycode]
}

// GetKeyboardMapping reads every keycode's keysyms.
func (c *Conn) GetKeyboardMapping() (*KeyboardMap, error) {
	first, count := c.Setup.MinKeycode, int(c.Setup.MaxKeycode)-int(c.Setup.MinKeycode)+1
	req := []byte{101, 0, 0, 0, first, uint8(count), 0, 0}
	rep, err := c.reply(c.send(req), count*255*4)
	if err != nil {
		return nil, err
	}
	per := int(rep[1])
	n := int(le.Uint32(rep[4:]))
	if per == 0 || n != per*count {
		return nil, c.breakWith(fmt.Errorf("a keyboard map of %d keysyms for %d keycodes", n, count))
	}
	m := &KeyboardMap{First: first, PerKeycode: per, Keysyms: make([]uint32, n)}
	for i := range m.Keysyms {
		m.Keysyms[i] = le.Uint32(rep[32+4*i:])
	}
	c.MappingChanged = false
	return m, nil
}

// ChangeKeyboardMapping binds keycode to keysyms (one a column). No reply; Sync says whether
// the server took it.
func (c *Conn) ChangeKeyboardMapping(keycode uint8, keysyms []uint32) {
	req := []byte{100, 1, 0, 0, keycode, uint8(len(keysyms)), 0, 0}
	for _, k := range keysyms {
		req = put32(req, k)
	}
	c.send(req)
}
