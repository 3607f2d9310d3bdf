package input

import (
	"context"
	"strings"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/x11"
	"agentrun.dev/computerd/internal/x11/xvfbtest"
)

type desk struct {
	in  *Input
	d   *x11.Display
	fix *xvfbtest.Fixture
}

// desktop is a real Xvfb with the fixture on it, and input on the same display.
func desktop(t *testing.T) *desk {
	srv := xvfbtest.Start(t)
	fix := xvfbtest.StartFixture(t, srv.Display)
	d := x11.NewDisplay(srv.Display, "")
	return &desk{in: New(d), d: d, fix: fix}
}

func (k *desk) run(t *testing.T, js string) ActionsResult {
	t.Helper()
	res, err := k.in.Actions(context.Background(), ActionsParams{Actions: batch(t, js)})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func (k *desk) ok(t *testing.T, js string) {
	t.Helper()
	if res := k.run(t, js); res.Failed != nil {
		t.Fatalf("failed: %+v", res.Failed)
	}
}

// typed is the text the fixture logged, once it holds n characters.
func (k *desk) typed(t *testing.T, n int) string {
	t.Helper()
	text := func(evs []xvfbtest.Event) string {
		var b strings.Builder
		for _, e := range evs {
			if e.Event == "text" {
				b.WriteString(e.Text)
			}
		}
		return b.String()
	}
	return text(k.fix.Until(t, func(evs []xvfbtest.Event) bool { return len([]rune(text(evs))) >= n }))
}

func (k *desk) pointer(t *testing.T) x11.Pointer {
	var p x11.Pointer
	err := k.d.Do(context.Background(), func(c *x11.Conn, _ int) error {
		var err error
		p, err = c.QueryPointer()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestClicksLandWithTheirCount(t *testing.T) {
	k := desktop(t)
	k.ok(t, `[{"type":"click","point":[30,40]}]`)
	evs := k.fix.Until(t, func(evs []xvfbtest.Event) bool { return len(evs) >= 2 })
	if evs[0].Event != "down" || evs[0].Point != [2]int{30, 40} || evs[0].Count != 1 || evs[1].Event != "up" {
		t.Fatalf("a click logged %+v", evs)
	}
	k.ok(t, `[{"type":"click","point":[150,150],"count":2,"button":"right"}]`)
	evs = k.fix.Until(t, func(evs []xvfbtest.Event) bool { return len(evs) >= 4 })
	if evs[2].Count != 2 || evs[2].Button != "right" || evs[2].Point != [2]int{150, 150} {
		t.Fatalf("a double click logged %+v", evs)
	}
}

func TestTypeArrivesExactly(t *testing.T) {
	k := desktop(t)
	want := "Hello, agentrun! 123 ~{}|\"<>?\tnext\n"
	k.ok(t, `[{"type":"click","point":[10,10]},{"type":"type","text":"Hello, agentrun! 123 ~{}|\"<>?\tnext\n"}]`)
	if got := k.typed(t, len(want)); got != want {
		t.Fatalf("typed %q, want %q", got, want)
	}
}

func TestTypeWithCapsLockOnGivesItsTextAndLeavesCapsOn(t *testing.T) {
	k := desktop(t)
	k.ok(t, `[{"type":"key","keys":["capslock"]}]`)
	if k.pointer(t).Mask&x11.LockMask == 0 {
		t.Fatal("Caps Lock did not turn on")
	}
	k.fix.Events(t)
	k.ok(t, `[{"type":"type","text":"Hello World"}]`)
	if got := k.typed(t, 11); got != "Hello World" {
		t.Fatalf("typed %q with Caps Lock on", got)
	}
	if k.pointer(t).Mask&x11.LockMask == 0 {
		t.Fatal("Caps Lock was left off")
	}
	// A key action presses as a keyboard does, so Caps Lock applies to it.
	k.ok(t, `[{"type":"key","keys":["q"]}]`)
	if got := k.typed(t, 1); got != "Q" {
		t.Fatalf("the key q with Caps Lock on typed %q", got)
	}
}

func TestCharactersWithNoKeyAreTypedThroughTheRemap(t *testing.T) {
	k := desktop(t)
	want := "café € 好 ✓ é"
	k.ok(t, `[{"type":"type","text":"café € 好 ✓ é"}]`)
	if got := k.typed(t, len([]rune(want))); got != want {
		t.Fatalf("typed %q, want %q", got, want)
	}
}

func TestTooManyCharactersWithNoKeyAreRefusedBeforeAnyKey(t *testing.T) {
	k := desktop(t)
	var b strings.Builder
	for r := rune(0x4e00); r < 0x4e00+300; r++ {
		b.WriteRune(r)
	}
	res := k.run(t, `[{"type":"type","text":"ab`+b.String()+`"}]`)
	if res.Done != 0 || res.Failed == nil || res.Failed.Kind != rpc.Limit || !strings.Contains(res.Failed.Message, "type it in parts") {
		t.Fatalf("got %+v", res)
	}
	k.fix.Quiet(t, 300*time.Millisecond)
}

func TestShiftedKeysAndCombos(t *testing.T) {
	k := desktop(t)
	k.ok(t, `[{"type":"key","keys":["A"]},{"type":"key","keys":["ctrl","s"]},{"type":"key","keys":["enter"],"repeat":2}]`)
	evs := k.fix.Until(t, func(evs []xvfbtest.Event) bool {
		n := 0
		for _, e := range evs {
			if e.Event == "key" && e.Key == "enter" {
				n++
			}
		}
		return n == 2
	})
	var a, s *xvfbtest.Event
	for i := range evs {
		switch evs[i].Key {
		case "A":
			a = &evs[i]
		case "s":
			s = &evs[i]
		}
	}
	if a == nil || strings.Join(a.Modifiers, "+") != "shift" {
		t.Fatalf("the key A came as %+v (all %+v)", a, evs)
	}
	if s == nil || strings.Join(s.Modifiers, "+") != "ctrl" {
		t.Fatalf("ctrl+s came as %+v (all %+v)", s, evs)
	}
}

func TestScrollTurnsTheWheelVerticalFirst(t *testing.T) {
	k := desktop(t)
	k.ok(t, `[{"type":"scroll","point":[50,60],"dy":2,"dx":-1}]`)
	evs := k.fix.Until(t, func(evs []xvfbtest.Event) bool { return len(evs) >= 3 })
	if evs[0].Dy != 1 || evs[1].Dy != 1 || evs[2].Dx != -1 || evs[0].Point != [2]int{50, 60} {
		t.Fatalf("the wheel logged %+v", evs)
	}
}

func TestABatchWithOneBadActionSendsNothing(t *testing.T) {
	k := desktop(t)
	k.ok(t, `[{"type":"move","point":[500,500]}]`)
	res := k.run(t, `[{"type":"click","point":[20,20]},{"type":"key","keys":["Hyper_Q"]},{"type":"type","text":"x"}]`)
	if res.Done != 0 || res.Failed == nil || res.Failed.Index != 1 || res.Failed.Kind != rpc.Invalid {
		t.Fatalf("got %+v", res)
	}
	k.fix.Quiet(t, 300*time.Millisecond)
	if p := k.pointer(t); p.X != 500 || p.Y != 500 {
		t.Fatalf("the pointer moved to %d,%d", p.X, p.Y)
	}
}

func TestTheBatchStopsAtTheFirstFailureAndReleasesWhatItHeld(t *testing.T) {
	k := desktop(t)
	res := k.run(t, `[{"type":"move","point":[40,40]},{"type":"down"},{"type":"move","point":[5000,40]},{"type":"click","point":[60,60]}]`)
	if res.Done != 2 || res.Failed == nil || res.Failed.Index != 2 || res.Failed.Kind != rpc.Invalid || !strings.Contains(res.Failed.Message, "off the display, which is 1280x800") {
		t.Fatalf("got %+v", res)
	}
	evs := k.fix.Until(t, func(evs []xvfbtest.Event) bool { return len(evs) >= 2 })
	if evs[0].Event != "down" || evs[1].Event != "up" || evs[1].Point != [2]int{40, 40} || len(evs) != 2 {
		t.Fatalf("logged %+v, want the press released where it was and no click", evs)
	}
	k.ok(t, `[{"type":"click","point":[120,120]}]`)
	evs = k.fix.Until(t, func(evs []xvfbtest.Event) bool { return len(evs) >= 2 })
	if evs[0].Event != "down" || evs[0].Point != [2]int{120, 120} || evs[0].Count != 1 {
		t.Fatalf("a later click logged %+v", evs)
	}
}

func TestADownWithNoUpStaysDownIntoTheNextBatch(t *testing.T) {
	k := desktop(t)
	k.ok(t, `[{"type":"down","point":[70,70]}]`)
	k.fix.Until(t, func(evs []xvfbtest.Event) bool { return len(evs) == 1 && evs[0].Event == "down" })
	k.fix.Quiet(t, 200*time.Millisecond)
	k.ok(t, `[{"type":"up","point":[80,80]}]`)
	evs := k.fix.Until(t, func(evs []xvfbtest.Event) bool { return len(evs) == 1 })
	if evs[0].Event != "up" || evs[0].Point != [2]int{80, 80} {
		t.Fatalf("logged %+v", evs)
	}
}

func TestACancelStopsTheBatchAndReleases(t *testing.T) {
	k := desktop(t)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res, err := k.in.Actions(ctx, ActionsParams{Actions: batch(t, `[{"type":"down","point":[90,90]},{"type":"wait","ms":5000},{"type":"up"}]`)})
	if err != nil || res.Done != 1 || res.Failed == nil || res.Failed.Kind != rpc.Aborted {
		t.Fatalf("got %+v %v", res, err)
	}
	evs := k.fix.Until(t, func(evs []xvfbtest.Event) bool { return len(evs) >= 2 })
	if evs[1].Event != "up" {
		t.Fatalf("logged %+v, want the press released", evs)
	}
}

func TestNoDisplayIsUnsupportedSayingWhy(t *testing.T) {
	_, err := New(x11.NewDisplay("", "")).Actions(context.Background(), ActionsParams{Actions: batch(t, `[{"type":"move","point":[1,1]}]`)})
	if rpc.KindOf(err) != rpc.Unsupported || !strings.Contains(err.Error(), "DISPLAY is not set") {
		t.Fatalf("got %v", err)
	}
}
