package x11

// The requests that find a window by its title and raise it: the window tree, atoms, a
// property's value, stacking; and a title set, as a client names its own window.

import "fmt"

// AtomWMName is WM_NAME, predefined by the core protocol; AtomString is STRING.
const (
	AtomWMName uint32 = 39
	AtomString uint32 = 31
)

// maxTitle is the most of a title read: longer ones are cut.
const maxTitle = 4096

// QueryTree gives w's children, bottom-most first.
func (c *Conn) QueryTree(w uint32) ([]uint32, error) {
	rep, err := c.reply(c.send(put32([]byte{15, 0, 0, 0}, w)), 4*65535)
	if err != nil {
		return nil, err
	}
	n := int(le.Uint16(rep[16:]))
	if len(rep) < 32+4*n {
		return nil, c.breakWith(fmt.Errorf("a tree of %d children in %d bytes", n, len(rep)-32))
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = le.Uint32(rep[32+4*i:])
	}
	return out, nil
}

// InternAtom gives the atom of name; with onlyIfExists, 0 when the server has none.
func (c *Conn) InternAtom(name string, onlyIfExists bool) (uint32, error) {
	flag := byte(0)
	if onlyIfExists {
		flag = 1
	}
	req := put16([]byte{16, flag, 0, 0}, len(name))
	req = append(req, 0, 0)
	req = append(req, padded([]byte(name))...)
	rep, err := c.reply(c.send(req), 0)
	if err != nil {
		return 0, err
	}
	return le.Uint32(rep[8:]), nil
}

// GetProperty reads up to maxTitle bytes of w's property prop, of any type; nil when it has none.
func (c *Conn) GetProperty(w, prop uint32) ([]byte, error) {
	req := put32([]byte{20, 0, 0, 0}, w)
	req = put32(req, prop)
	req = put32(req, 0) // AnyPropertyType
	req = put32(req, 0)
	req = put32(req, maxTitle/4)
	rep, err := c.reply(c.send(req), maxTitle)
	if err != nil {
		return nil, err
	}
	format, n := int(rep[1]), int(le.Uint32(rep[16:]))
	if format != 8 || n == 0 {
		return nil, nil
	}
	if len(rep) < 32+n {
		return nil, c.breakWith(fmt.Errorf("a property of %d bytes in %d", n, len(rep)-32))
	}
	return rep[32 : 32+n], nil
}

// ChangeProperty replaces w's property prop with value, 8-bit data of type typ.
func (c *Conn) ChangeProperty(w, prop, typ uint32, value []byte) {
	req := put32([]byte{18, 0, 0, 0}, w) // mode Replace
	req = put32(req, prop)
	req = put32(req, typ)
	req = append(req, 8, 0, 0, 0)
	req = put32(req, uint32(len(value)))
	c.send(append(req, padded(value)...))
}

// RaiseWindow puts w above its siblings (ConfigureWindow, stack-mode Above).
func (c *Conn) RaiseWindow(w uint32) {
	req := put32([]byte{12, 0, 0, 0}, w)
	req = put16(req, 0x40)
	req = append(req, 0, 0)
	c.send(put32(req, 0))
}
