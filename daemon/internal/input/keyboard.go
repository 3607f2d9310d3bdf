package input

import (
	"context"
	"fmt"
	"time"

	"agentrun.dev/computerd/internal/keys"
	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/x11"
)

// settle is how long a remapped keycode's binding stays after its last key before it may be
// moved: clients read the events bound to it by then.
const settle = 250 * time.Millisecond

// slot is a keycode that had no keysym, lent to characters with no key of their own. The
// binding is never undone (that would race a client still reading the map); it moves only when
// another character needs the keycode, longest unused first.
type slot struct {
	keycode uint8
	keysym  uint32 // 0 while free
	used    time.Time
}

// keyboard is the display's map as last read, for one connection (gen).
type keyboard struct {
	gen   int
	m     *x11.KeyboardMap
	slots []*slot
}

// key is a keycode and whether shift must be held for the keysym it types.
type key struct {
	code  uint8
	shift bool
}

// load reads the map when the connection is new or a MappingNotify said it changed. The slots
// are the keycodes empty at the first read of a connection, and those still bound to a slot.
func (k *keyboard) load(c *x11.Conn, gen int) error {
	if k.m != nil && k.gen == gen && !c.MappingChanged {
		return nil
	}
	m, err := c.GetKeyboardMapping()
	if err != nil {
		return err
	}
	if k.gen != gen || k.m == nil {
		k.slots = nil
		for code := int(c.Setup.MinKeycode); code <= int(c.Setup.MaxKeycode); code++ {
			if empty(m.Of(uint8(code))) {
				k.slots = append(k.slots, &slot{keycode: uint8(code)})
			}
		}
	}
	k.gen, k.m = gen, m
	return nil
}

func empty(syms []uint32) bool {
	for _, s := range syms {
		if s != 0 {
			return false
		}
	}
	return true
}

// find is the keycode typing keysym, unshifted first; a letter alone on its key takes shift
// for its capital, as X11's case rule does.
func (k *keyboard) find(keysym uint32) (key, bool) {
	var found key
	ok := false
	first := int(k.m.First)
	for i := 0; i+k.m.PerKeycode <= len(k.m.Keysyms); i += k.m.PerKeycode {
		syms := k.m.Keysyms[i : i+k.m.PerKeycode]
		code := uint8(first + i/k.m.PerKeycode)
		if syms[0] == keysym {
			return key{code: code}, true
		}
		if !ok && len(syms) > 1 && syms[1] == keysym {
			found, ok = key{code: code, shift: true}, true
		}
		if !ok && keysym >= 'A' && keysym <= 'Z' && syms[0] == keysym+32 && (len(syms) < 2 || syms[1] == 0) {
			found, ok = key{code: code, shift: true}, true
		}
	}
	return found, ok
}

// named is the keycode of a key in the table (a name or one printable character).
func (k *keyboard) named(ctx context.Context, c *x11.Conn, name string) (key, error) {
	sym, _ := keys.Keysym(name)
	if kk, ok := k.find(sym); ok {
		return kk, nil
	}
	return k.remap(ctx, c, sym, nil)
}

// slotOf is the slot bound to keysym, if one is.
func (k *keyboard) slotOf(keysym uint32) *slot {
	for _, s := range k.slots {
		if s.keysym == keysym {
			return s
		}
	}
	return nil
}

// remap binds keysym to a slot's keycode (ChangeKeyboardMapping, then one round trip): a free
// slot, else the one used longest ago outside pinned, once it has settled.
func (k *keyboard) remap(ctx context.Context, c *x11.Conn, keysym uint32, pinned map[uint8]bool) (key, error) {
	var pick *slot
	for _, s := range k.slots {
		if pinned[s.keycode] {
			continue
		}
		if s.keysym == 0 {
			pick = s
			break
		}
		if pick == nil || s.used.Before(pick.used) {
			pick = s
		}
	}
	if pick == nil {
		return key{}, rpc.Errorf(rpc.Limit, "the keyboard map has no keycode free for the character's keysym %#x", keysym)
	}
	if wait := time.Until(pick.used.Add(settle)); pick.keysym != 0 && wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return key{}, ctx.Err()
		}
	}
	syms := make([]uint32, k.m.PerKeycode)
	for i := range syms {
		syms[i] = keysym // every column, so shift and Caps Lock type the same character
	}
	c.ChangeKeyboardMapping(pick.keycode, syms)
	if err := c.Sync(); err != nil {
		return key{}, fmt.Errorf("binding a keycode to the keysym %#x: %w", keysym, err)
	}
	copy(k.m.Of(pick.keycode), syms)
	c.MappingChanged = false // the notice was for this change, now in k.m
	pick.keysym = keysym
	return key{code: pick.keycode}, nil
}

// touch marks a slot's keycode used now, when it is one.
func (k *keyboard) touch(code uint8) {
	for _, s := range k.slots {
		if s.keycode == code {
			s.used = time.Now()
		}
	}
}
