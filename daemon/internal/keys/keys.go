package keys

// Key is one named key and its X keysym.
type Key struct {
	Name   string `json:"name"`
	Keysym uint32 `json:"keysym"`
}

// Named is every named key, in src/daemon/actions.ts's order; any other key is one printable ASCII
// character (0x21-0x7e), whose keysym is its code.
var Named = []Key{
	{"enter", 0xff0d}, // Return
	{"tab", 0xff09},
	{"space", 0x0020},
	{"backspace", 0xff08},
	{"delete", 0xffff},
	{"escape", 0xff1b},
	{"insert", 0xff63},
	{"up", 0xff52},
	{"down", 0xff54},
	{"left", 0xff51},
	{"right", 0xff53},
	{"home", 0xff50},
	{"end", 0xff57},
	{"pageup", 0xff55},   // Prior
	{"pagedown", 0xff56}, // Next
	{"f1", 0xffbe}, {"f2", 0xffbf}, {"f3", 0xffc0}, {"f4", 0xffc1}, {"f5", 0xffc2}, {"f6", 0xffc3},
	{"f7", 0xffc4}, {"f8", 0xffc5}, {"f9", 0xffc6}, {"f10", 0xffc7}, {"f11", 0xffc8}, {"f12", 0xffc9},
	{"shift", 0xffe1},    // Shift_L
	{"ctrl", 0xffe3},     // Control_L
	{"alt", 0xffe9},      // Alt_L
	{"super", 0xffeb},    // Super_L
	{"capslock", 0xffe5}, // Caps_Lock
}

var byName = func() map[string]uint32 {
	m := make(map[string]uint32, len(Named))
	for _, k := range Named {
		m[k.Name] = k.Keysym
	}
	return m
}()

// Keysym is a key's keysym: a name in the table, or one printable ASCII character.
func Keysym(key string) (uint32, bool) {
	if s, ok := byName[key]; ok {
		return s, true
	}
	if len(key) == 1 && key[0] >= 0x21 && key[0] <= 0x7e {
		return uint32(key[0]), true
	}
	return 0, false
}

// Keysyms of the keys text types that are not their character.
const (
	Return   = 0xff0d
	Tab      = 0xff09
	ShiftL   = 0xffe1
	CapsLock = 0xffe5
)

// OfRune is the keysym that types r: Latin-1 characters are their own code, newline and tab
// their keys, anything else Unicode's keysym (0x01000000 + the code point).
func OfRune(r rune) uint32 {
	switch {
	case r == '\n':
		return Return
	case r == '\t':
		return Tab
	case r >= 0x20 && r <= 0x7e, r >= 0xa0 && r <= 0xff:
		return uint32(r)
	}
	return 0x01000000 + uint32(r)
}
