package x11

import (
	"encoding/binary"
	"fmt"
)

// Format is one pixmap format the server offers.
type Format struct {
	Depth, BitsPerPixel, ScanlinePad uint8
}

// Visual is a visual's colour masks.
type Visual struct {
	ID                           uint32
	Class                        uint8
	RedMask, GreenMask, BlueMask uint32
}

// Screen is the first screen of the display: its root window and size.
type Screen struct {
	Root          uint32
	Width, Height int
	RootDepth     uint8
	RootVisual    uint32
	WhitePixel    uint32
	BlackPixel    uint32
	Visual        Visual // the root visual's masks
}

// Setup is what the server said at connection setup that the client uses.
type Setup struct {
	ResourceBase, ResourceMask uint32
	MaxRequestLength           int // in 4-byte units
	ImageMSBFirst              bool
	MinKeycode, MaxKeycode     uint8
	Formats                    []Format
	Screen                     Screen
}

// FormatOf is the pixmap format for depth; ok is false when the server has none.
func (s *Setup) FormatOf(depth uint8) (Format, bool) {
	for _, f := range s.Formats {
		if f.Depth == depth {
			return f, true
		}
	}
	return Format{}, false
}

// parseSetup reads a successful setup reply's body (after its 8-byte head). The server is not
// trusted: every count is checked against the bytes there, a scanline pad other than 8, 16 or
// 32 and keycodes that are not a range from 8 up are refused.
func parseSetup(b []byte) (*Setup, error) {
	le := binary.LittleEndian
	short := fmt.Errorf("the X server's setup reply is cut short")
	if len(b) < 32 {
		return nil, short
	}
	s := &Setup{
		ResourceBase:     le.Uint32(b[4:]),
		ResourceMask:     le.Uint32(b[8:]),
		MaxRequestLength: int(le.Uint16(b[18:])),
		ImageMSBFirst:    b[22] == 1,
		MinKeycode:       b[26],
		MaxKeycode:       b[27],
	}
	if s.MinKeycode < 8 || s.MaxKeycode < s.MinKeycode {
		return nil, fmt.Errorf("the X server's keycodes %d to %d are not a range from 8 up: refused", s.MinKeycode, s.MaxKeycode)
	}
	if s.ResourceMask == 0 {
		return nil, fmt.Errorf("the X server gave no resource ids: refused")
	}
	vendorLen := int(le.Uint16(b[16:]))
	screens, formats := int(b[20]), int(b[21])
	off := 32 + pad4(vendorLen)
	if screens < 1 {
		return nil, fmt.Errorf("the X server has no screen")
	}
	for i := 0; i < formats; i++ {
		if off+8 > len(b) {
			return nil, short
		}
		f := Format{Depth: b[off], BitsPerPixel: b[off+1], ScanlinePad: b[off+2]}
		switch f.ScanlinePad {
		case 8, 16, 32:
		default:
			return nil, fmt.Errorf("the X server's scanline pad %d (depth %d) is not 8, 16 or 32: refused", f.ScanlinePad, f.Depth)
		}
		s.Formats = append(s.Formats, f)
		off += 8
	}
	if off+40 > len(b) {
		return nil, short
	}
	sc := b[off:]
	s.Screen = Screen{
		Root:       le.Uint32(sc[0:]),
		WhitePixel: le.Uint32(sc[8:]),
		BlackPixel: le.Uint32(sc[12:]),
		Width:      int(le.Uint16(sc[20:])),
		Height:     int(le.Uint16(sc[22:])),
		RootVisual: le.Uint32(sc[32:]),
		RootDepth:  sc[38],
	}
	depths := int(sc[39])
	off += 40
	for i := 0; i < depths; i++ {
		if off+8 > len(b) {
			return nil, short
		}
		nvis := int(le.Uint16(b[off+2:]))
		off += 8
		if off+24*nvis > len(b) {
			return nil, short
		}
		for j := 0; j < nvis; j++ {
			v := b[off+24*j:]
			if le.Uint32(v) == s.Screen.RootVisual {
				s.Screen.Visual = Visual{ID: le.Uint32(v), Class: v[4], RedMask: le.Uint32(v[8:]), GreenMask: le.Uint32(v[12:]), BlueMask: le.Uint32(v[16:])}
			}
		}
		off += 24 * nvis
	}
	if s.Screen.Width < 1 || s.Screen.Height < 1 {
		return nil, fmt.Errorf("the X server's screen has no size")
	}
	if _, ok := s.FormatOf(s.Screen.RootDepth); !ok {
		return nil, fmt.Errorf("the X server has no pixmap format for its root depth %d", s.Screen.RootDepth)
	}
	return s, nil
}

func pad4(n int) int { return (n + 3) &^ 3 }
