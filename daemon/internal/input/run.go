package input

import (
	"context"
	"errors"
	"fmt"
	"time"

	"agentrun.dev/computerd/internal/keys"
	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/x11"
)

// X11's buttons: the mouse's three, and the wheel's four directions.
var buttons = map[string]uint8{"": 1, "left": 1, "middle": 2, "right": 3}

const (
	wheelUp, wheelDown, wheelLeft, wheelRight = 4, 5, 6, 7
	typeSyncEvery                             = 64 // characters typed between round trips
)

// runner runs one batch on a connection, keeping what the batch pressed and has not released.
type runner struct {
	ctx     context.Context
	c       *x11.Conn
	kb      *keyboard
	gen     int     // the display's connection, whose keyboard map kb holds
	keys    []uint8 // keycodes held, in press order
	buttons []uint8
}

// stop is why an action stopped the batch.
type stop struct {
	kind rpc.Kind
	msg  string
}

func (s *stop) Error() string { return s.msg }

func stopped(k rpc.Kind, format string, args ...any) error {
	return &stop{kind: k, msg: fmt.Sprintf(format, args...)}
}

// run runs the actions in order; it returns how many were done and the failure that stopped it.
func (r *runner) run(actions []*Action) (int, *Failure) {
	if len(actions) == 0 {
		return 0, nil
	}
	for i, a := range actions {
		err := r.ctx.Err()
		if err == nil {
			err = r.action(a)
		}
		if err != nil {
			r.releaseAll()
			return i, r.failure(i, a, err)
		}
	}
	if err := r.c.Sync(); err != nil {
		r.releaseAll()
		return len(actions) - 1, r.failure(len(actions)-1, actions[len(actions)-1], err)
	}
	return len(actions), nil
}

func (r *runner) failure(i int, a *Action, err error) *Failure {
	var s *stop
	var xe *x11.Error
	switch {
	case errors.As(err, &s):
		return fail(i, s.kind, "action %d (%s): %s", i, a.Type, s.msg)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return fail(i, rpc.Aborted, "action %d (%s): the request was cancelled; what the batch held was released", i, a.Type)
	case errors.Is(err, x11.ErrGone):
		return fail(i, rpc.Unsupported, "action %d (%s): %v", i, a.Type, err)
	case errors.As(err, &xe):
		return fail(i, rpc.Invalid, "action %d (%s): %v", i, a.Type, err)
	}
	return fail(i, rpc.KindOf(err), "action %d (%s): %v", i, a.Type, err)
}

// releaseAll lets go of every key (last pressed first) and button the batch holds, where the
// pointer is.
func (r *runner) releaseAll() {
	for i := len(r.keys) - 1; i >= 0; i-- {
		r.c.FakeInput(x11.KeyRelease, r.keys[i], 0, 0)
	}
	for _, b := range r.buttons {
		r.c.FakeInput(x11.ButtonRelease, b, 0, 0)
	}
	r.keys, r.buttons = nil, nil
	r.c.Sync()
}

func (r *runner) move(p []float64) error {
	if p == nil {
		return nil
	}
	if err := r.ctx.Err(); err != nil {
		return err
	}
	x, y := int(p[0]), int(p[1])
	s := r.c.Setup.Screen
	if x < 0 || y < 0 || x >= s.Width || y >= s.Height {
		return stopped(rpc.Invalid, "the point [%d, %d] is off the display, which is %dx%d", x, y, s.Width, s.Height)
	}
	r.c.FakeInput(x11.MotionNotify, 0, x, y)
	return nil
}

func (r *runner) press(b uint8) {
	r.c.FakeInput(x11.ButtonPress, b, 0, 0)
	r.buttons = append(r.buttons, b)
}

func (r *runner) release(b uint8) {
	r.c.FakeInput(x11.ButtonRelease, b, 0, 0)
	for i, held := range r.buttons {
		if held == b {
			r.buttons = append(r.buttons[:i], r.buttons[i+1:]...)
			break
		}
	}
}

func (r *runner) keyDown(code uint8) {
	r.c.FakeInput(x11.KeyPress, code, 0, 0)
	r.keys = append(r.keys, code)
	r.kb.touch(code)
}

func (r *runner) keyUp(code uint8) {
	r.c.FakeInput(x11.KeyRelease, code, 0, 0)
	for i := len(r.keys) - 1; i >= 0; i-- {
		if r.keys[i] == code {
			r.keys = append(r.keys[:i], r.keys[i+1:]...)
			break
		}
	}
	r.kb.touch(code)
}

// combo is the press order for keys: each key's keycode, with shift before a key that needs it.
func (r *runner) combo(names []string) ([]uint8, error) {
	if err := r.kb.load(r.c, r.gen); err != nil {
		return nil, err
	}
	var seq []uint8
	var shift *key
	for _, n := range names {
		k, err := r.kb.named(r.ctx, r.c, n)
		if err != nil {
			return nil, err
		}
		if k.shift {
			if shift == nil {
				s, err := r.kb.named(r.ctx, r.c, "shift")
				if err != nil {
					return nil, err
				}
				shift = &s
			}
			if !contains(seq, shift.code) {
				seq = append(seq, shift.code)
			}
		}
		if !contains(seq, k.code) {
			seq = append(seq, k.code)
		}
	}
	return seq, nil
}

func contains(s []uint8, v uint8) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func (r *runner) pressAll(seq []uint8) {
	for _, k := range seq {
		r.keyDown(k)
	}
}

func (r *runner) releaseSeq(seq []uint8) {
	for i := len(seq) - 1; i >= 0; i-- {
		r.keyUp(seq[i])
	}
}

func (r *runner) sleep(ms int) error {
	if ms <= 0 {
		return nil
	}
	if err := r.c.Flush(); err != nil {
		return err
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-r.ctx.Done():
		return r.ctx.Err()
	}
}

// action runs one action; one with a button, a key or a map change ends with a round trip, so
// an X error stops the batch at the action that drew it.
func (r *runner) action(a *Action) error {
	switch a.Type {
	case "wait":
		return r.sleep(a.ms())
	case "move":
		return r.move(a.Point)
	case "down", "up":
		if err := r.move(a.Point); err != nil {
			return err
		}
		if a.Type == "down" {
			r.press(buttons[a.Button])
		} else {
			r.release(buttons[a.Button])
		}
	case "click":
		if err := r.click(a); err != nil {
			return err
		}
	case "drag":
		if err := r.move(a.Path[0]); err != nil {
			return err
		}
		b := buttons[a.Button]
		r.press(b)
		for _, p := range a.Path[1:] {
			if err := r.move(p); err != nil {
				return err
			}
		}
		r.release(b)
	case "scroll":
		if err := r.scroll(a); err != nil {
			return err
		}
	case "key", "hold":
		seq, err := r.combo(a.Keys)
		if err != nil {
			return err
		}
		times := num(a.Repeat, 1)
		for n := 0; n < times; n++ {
			if err := r.ctx.Err(); err != nil {
				return err
			}
			r.pressAll(seq)
			if a.Type == "hold" {
				if err := r.c.Sync(); err != nil {
					return err
				}
				if err := r.sleep(a.ms()); err != nil {
					return err
				}
			}
			r.releaseSeq(seq)
		}
	case "type":
		if err := r.typeText(*a.Text); err != nil {
			return err
		}
	}
	return r.c.Sync()
}

func (r *runner) click(a *Action) error {
	if err := r.move(a.Point); err != nil {
		return err
	}
	var seq []uint8
	if len(a.Keys) > 0 {
		var err error
		if seq, err = r.combo(a.Keys); err != nil {
			return err
		}
		r.pressAll(seq)
	}
	b := buttons[a.Button]
	for n := 0; n < num(a.Count, 1); n++ {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		r.press(b)
		r.release(b)
	}
	r.releaseSeq(seq)
	return nil
}

// scroll turns the wheel one click at a time, vertical first: dy above 0 down, dx above 0 right.
func (r *runner) scroll(a *Action) error {
	if err := r.move(a.Point); err != nil {
		return err
	}
	turn := func(n int, neg, pos uint8) error {
		b := pos
		if n < 0 {
			b, n = neg, -n
		}
		for ; n > 0; n-- {
			if err := r.ctx.Err(); err != nil {
				return err
			}
			r.press(b)
			r.release(b)
		}
		return nil
	}
	if err := turn(num(a.Dy, 0), wheelUp, wheelDown); err != nil {
		return err
	}
	return turn(num(a.Dx, 0), wheelLeft, wheelRight)
}

// typeText types text exactly whatever Caps Lock is: when it is on, it is turned off for the
// typing and back on after. A character with no key is bound to a spare keycode first; a text
// needing more spare keycodes than the map has is refused before any key.
func (r *runner) typeText(text string) error {
	if err := r.kb.load(r.c, r.gen); err != nil {
		return err
	}
	missing := map[uint32]bool{}
	for _, ch := range text {
		sym := keys.OfRune(ch)
		if _, ok := r.kb.find(sym); !ok {
			missing[sym] = true
		}
	}
	if len(missing) > len(r.kb.slots) {
		return stopped(rpc.Limit, "the text has %d characters with no key and the keyboard map has %d keycodes to lend them: type it in parts", len(missing), len(r.kb.slots))
	}
	p, err := r.c.QueryPointer()
	if err != nil {
		return err
	}
	var caps key
	if p.Mask&x11.LockMask != 0 {
		if caps, err = r.kb.named(r.ctx, r.c, "capslock"); err != nil {
			return err
		}
		r.keyDown(caps.code)
		r.keyUp(caps.code)
		defer func() {
			r.keyDown(caps.code)
			r.keyUp(caps.code)
			r.c.Sync()
		}()
	}
	var shift *key
	pinned := map[uint8]bool{}
	n := 0
	for _, ch := range text {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		sym := keys.OfRune(ch)
		k, ok := r.kb.find(sym)
		if !ok {
			if k, err = r.kb.remap(r.ctx, r.c, sym, pinned); err != nil {
				return err
			}
		}
		if r.kb.slotOf(sym) != nil {
			pinned[k.code] = true
		}
		if k.shift && shift == nil {
			s, err := r.kb.named(r.ctx, r.c, "shift")
			if err != nil {
				return err
			}
			shift = &s
		}
		if k.shift {
			r.keyDown(shift.code)
		}
		r.keyDown(k.code)
		r.keyUp(k.code)
		if k.shift {
			r.keyUp(shift.code)
		}
		if n++; n%typeSyncEvery == 0 {
			if err := r.c.Sync(); err != nil {
				return err
			}
		}
	}
	return nil
}
