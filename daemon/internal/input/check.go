package input

import (
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf8"

	"agentrun.dev/computerd/internal/keys"
	"agentrun.dev/computerd/internal/rpc"
)

// The batch's bounds (src/daemon/actions.ts and src/daemon/protocol.ts hold the same numbers).
const (
	MaxActions      = 100
	MaxBatchWaitMs  = 300_000
	MaxKeyRepeat    = 100
	MaxTypeChars    = 65_536
	MaxScrollClicks = 10_000
	MaxDragPoints   = 1000
	MaxKeysAtOnce   = 16
)

// Failure names the action that failed, what kind of failure, and why.
type Failure struct {
	Index   int      `json:"index"`
	Kind    rpc.Kind `json:"kind"`
	Message string   `json:"message"`
}

var group = map[string]string{
	"move": "input.pointer", "down": "input.pointer", "up": "input.pointer", "click": "input.pointer",
	"drag": "input.pointer", "scroll": "input.pointer",
	"key": "input.keys", "hold": "input.keys", "type": "input.keys",
	"tap": "input.touch", "long_press": "input.touch", "swipe": "input.touch", "pinch": "input.touch", "button": "input.touch",
}

// Declared is what an X display takes: the pointer and the keys, never touch.
var Declared = []string{"input.pointer", "input.keys"}

func fail(i int, k rpc.Kind, format string, args ...any) *Failure {
	return &Failure{Index: i, Kind: k, Message: fmt.Sprintf(format, args...)}
}

// Check is the whole batch checked before anything runs, in checkActions' order (shape, group,
// keys, repeat, text, px scroll, waits) with X11's own rules after each action's group: touch
// and pixel scroll unsupported, points and counts whole, no unknown field, text that a key can
// type, and the shim's bounds as limit. It returns the actions, or the failure the batch gets.
func Check(raw []json.RawMessage) ([]*Action, *Failure) {
	if len(raw) > MaxActions {
		return nil, fail(MaxActions, rpc.Limit, "a batch holds at most %d actions; this one has %d: send the rest in another batch", MaxActions, len(raw))
	}
	out := make([]*Action, 0, len(raw))
	waited := 0
	for i, r := range raw {
		a, err := decode(r)
		if err != nil {
			return nil, fail(i, rpc.Invalid, "action %d: %v", i, err)
		}
		if g := group[a.Type]; g == "input.touch" {
			return nil, fail(i, rpc.Unsupported, "action %d (%s) needs the group input.touch, which this computer does not declare: X11 has no touch", i, a.Type)
		}
		for _, k := range a.Keys {
			if _, ok := keys.Keysym(k); !ok {
				return nil, fail(i, rpc.Invalid, "action %d (%s): %q is not a key: a key is a name in the key table (enter, tab, space, ctrl, f1-f12, ...) or one printable ASCII character", i, a.Type, trim(k))
			}
		}
		if a.Type == "key" && num(a.Repeat, 1) > MaxKeyRepeat {
			return nil, fail(i, rpc.Limit, "action %d (key): repeat is at most %d", i, MaxKeyRepeat)
		}
		if a.Type == "type" && utf8.RuneCountInString(*a.Text) > MaxTypeChars {
			return nil, fail(i, rpc.Limit, "action %d (type): a text holds at most %d characters; type it in parts", i, MaxTypeChars)
		}
		if a.Type == "scroll" && a.Unit == "px" {
			return nil, fail(i, rpc.Unsupported, "action %d (scroll): this computer scrolls in wheel clicks, not pixels", i)
		}
		if a.Type == "wait" || a.Type == "hold" {
			waited += a.ms()
		}
		if waited > MaxBatchWaitMs {
			return nil, fail(i, rpc.Limit, "action %d (%s): a batch's waits and holds last at most %d s together", i, a.Type, MaxBatchWaitMs/1000)
		}
		if f := checkX11(i, a); f != nil {
			return nil, f
		}
		out = append(out, a)
	}
	return out, nil
}

// checkX11 is the shim's own bounds and the text a keyboard can type.
func checkX11(i int, a *Action) *Failure {
	if len(a.Keys) > MaxKeysAtOnce {
		return fail(i, rpc.Limit, "action %d (%s): at most %d keys at once", i, a.Type, MaxKeysAtOnce)
	}
	switch a.Type {
	case "scroll":
		if clicks := abs(num(a.Dx, 0)) + abs(num(a.Dy, 0)); clicks > MaxScrollClicks {
			return fail(i, rpc.Limit, "action %d (scroll): at most %d wheel clicks a scroll, not %d", i, MaxScrollClicks, clicks)
		}
	case "drag":
		if len(a.Path) > MaxDragPoints {
			return fail(i, rpc.Limit, "action %d (drag): a path holds at most %d points", i, MaxDragPoints)
		}
	case "type":
		for _, r := range *a.Text {
			if r != '\n' && r != '\t' && unicode.IsControl(r) {
				return fail(i, rpc.Invalid, "action %d (type): the character %U is a control character no key types (only newline and tab are)", i, r)
			}
		}
	}
	return nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
