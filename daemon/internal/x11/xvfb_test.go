package x11

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/x11/xvfbtest"
)

func dial(t *testing.T, display string) *Conn {
	t.Helper()
	a, err := ParseDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestRealServerSetupAndXTEST(t *testing.T) {
	c := dial(t, xvfbtest.Start(t).Display)
	if c.Setup.Screen.Width != 1280 || c.Setup.Screen.Height != 800 {
		t.Fatalf("screen %dx%d, want 1280x800", c.Setup.Screen.Width, c.Setup.Screen.Height)
	}
	if err := c.UseXTEST(); err != nil {
		t.Fatal(err)
	}
	if op, err := c.QueryExtension("NO-SUCH-EXTENSION"); err != nil || op != 0 {
		t.Fatalf("a missing extension: %d %v", op, err)
	}
}

func TestRealServerPixelsOfAFilledWindow(t *testing.T) {
	c := dial(t, xvfbtest.Start(t).Display)
	w := c.CreateWindow(100, 50, 40, 30, 0x123456, 0)
	c.MapWindow(w)
	gc := c.CreateGC(w)
	c.FillRect(w, gc, 0xff8000, 20, 0, 20, 30)
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	im, err := c.GetImage(90, 40, 60, 50)
	if err != nil {
		t.Fatal(err)
	}
	rgba := im.RGBA()
	for _, p := range []struct {
		x, y    int
		r, g, b uint8
	}{{0, 0, 0, 0, 0}, {10, 10, 0x12, 0x34, 0x56}, {29, 39, 0x12, 0x34, 0x56}, {30, 10, 0xff, 0x80, 0x00}, {49, 39, 0xff, 0x80, 0}, {50, 10, 0, 0, 0}} {
		got := rgba.RGBAAt(p.x, p.y)
		if got.R != p.r || got.G != p.g || got.B != p.b || got.A != 0xff {
			t.Errorf("pixel %d,%d is %v, want %02x%02x%02x", p.x, p.y, got, p.r, p.g, p.b)
		}
	}
	full, err := c.GetImage(0, 0, 1280, 800)
	if err != nil || full.Width != 1280 || len(full.Data) != full.Stride*800 {
		t.Fatalf("the whole root: %v", err)
	}
}

func TestRealServerPointerMovesByXTEST(t *testing.T) {
	c := dial(t, xvfbtest.Start(t).Display)
	if err := c.UseXTEST(); err != nil {
		t.Fatal(err)
	}
	c.FakeInput(MotionNotify, 0, 321, 123)
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	p, err := c.QueryPointer()
	if err != nil || p.X != 321 || p.Y != 123 {
		t.Fatalf("pointer at %+v %v, want 321,123", p, err)
	}
	// A bad keycode draws a Value error, which Sync reports.
	c.FakeInput(KeyPress, 3, 0, 0)
	var xe *Error
	if err := c.Sync(); !errors.As(err, &xe) || xe.Code != 2 {
		t.Fatalf("a keycode below the range: got %v, want a Value error", err)
	}
}

func TestRealServerKeyboardMapChanges(t *testing.T) {
	c := dial(t, xvfbtest.Start(t).Display)
	m, err := c.GetKeyboardMapping()
	if err != nil {
		t.Fatal(err)
	}
	free := uint8(0)
	for k := int(c.Setup.MaxKeycode); k >= int(c.Setup.MinKeycode); k-- {
		empty := true
		for _, s := range m.Of(uint8(k)) {
			empty = empty && s == 0
		}
		if empty {
			free = uint8(k)
			break
		}
	}
	if free == 0 {
		t.Fatal("the server's map has no empty keycode")
	}
	syms := make([]uint32, m.PerKeycode)
	for i := range syms {
		syms[i] = 0x10000e9
	}
	c.ChangeKeyboardMapping(free, syms)
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	if !c.MappingChanged {
		t.Error("no MappingNotify was noted after the change")
	}
	m2, err := c.GetKeyboardMapping()
	if err != nil || m2.Of(free)[0] != 0x10000e9 {
		t.Fatalf("keycode %d reads %v after the change (%v)", free, m2.Of(free), err)
	}
}

// writeAuth writes an Xauthority file for any display holding cookie.
func writeAuth(t *testing.T, cookie []byte) string {
	p := filepath.Join(t.TempDir(), "Xauthority")
	if err := os.WriteFile(p, authEntry(familyWild, "", "", cookieName, cookie), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRealServerCookie(t *testing.T) {
	secret := make([]byte, 16)
	rand.Read(secret)
	srv := xvfbtest.Start(t, "-auth", writeAuth(t, secret))
	a, _ := ParseDisplay(srv.Display)
	if _, err := Dial(a, nil); err == nil || !strings.Contains(err.Error(), "refused the connection") {
		t.Fatalf("no cookie: got %v, want refused", err)
	}
	if _, err := Dial(a, &Cookie{Name: cookieName, Data: make([]byte, 16)}); err == nil {
		t.Fatal("a wrong cookie was taken")
	}
	d := NewDisplay(srv.Display, writeAuth(t, secret))
	if ok, why := d.Answers(); !ok {
		t.Fatalf("the right cookie from the file: %s", why)
	}
}

func TestDisplayReachedAgainAfterItGoes(t *testing.T) {
	srv := xvfbtest.Start(t)
	d := NewDisplay(srv.Display, "")
	if ok, why := d.Answers(); !ok {
		t.Fatal(why)
	}
	srv.Stop()
	if ok, why := d.Answers(); ok || !strings.Contains(why, "no X display answers") {
		t.Fatalf("a display that went: %v %q", ok, why)
	}
	err := d.Do(context.Background(), func(*Conn, int) error { return nil })
	var un *Unavailable
	if !errors.As(err, &un) {
		t.Fatalf("Do on a display that went: %v", err)
	}
	gen := d.Generation()
	again := xvfbtest.Start(t, srv.Display)
	if again.Display != srv.Display {
		t.Skipf("Xvfb took %s, not %s", again.Display, srv.Display)
	}
	if ok, why := d.Answers(); !ok {
		t.Fatalf("the display back: %s", why)
	}
	if d.Generation() == gen {
		t.Error("the new connection kept the old generation")
	}
}

func TestNoDisplayIsUnavailableInWords(t *testing.T) {
	ok, why := NewDisplay("", "").Answers()
	if ok || !strings.Contains(why, "DISPLAY is not set") {
		t.Fatalf("got %v %q", ok, why)
	}
	ok, why = NewDisplay("192.0.2.1:0", "").Answers()
	if ok || !strings.Contains(why, "not a display in this computer") {
		t.Fatalf("got %v %q", ok, why)
	}
}

func TestDisplayTurnIsBoundedByTheCaller(t *testing.T) {
	srv := xvfbtest.Start(t)
	d := NewDisplay(srv.Display, "")
	hold := make(chan struct{})
	go d.Do(context.Background(), func(*Conn, int) error { <-hold; return nil })
	defer close(hold)
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := d.Do(ctx, func(*Conn, int) error { t.Error("ran while another held the display"); return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("got %v", err)
	}
}

// A fake server: the setup of setupBody, then one reply to whatever is asked, of extra bytes.
func fakeServer(t *testing.T, extra uint32) *Conn {
	client, server := net.Pipe()
	go func() {
		head := make([]byte, 12)
		io.ReadFull(server, head)
		body := setupBody(32, 8, 255)
		h := make([]byte, 8)
		h[0] = 1
		le.PutUint16(h[2:], 11)
		le.PutUint16(h[6:], uint16(len(body)/4))
		server.Write(append(h, body...))
		req := make([]byte, 20)
		io.ReadFull(server, req)
		rep := make([]byte, 32)
		rep[0] = 1
		le.PutUint16(rep[2:], 1)
		le.PutUint32(rep[4:], extra)
		server.Write(rep)
		io.Copy(io.Discard, server)
	}()
	c, err := NewConn(client, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestAReplyPastItsRequestsBoundEndsTheConnection(t *testing.T) {
	c := fakeServer(t, 1<<30) // 4 GiB claimed for a 2x2 image
	_, err := c.GetImage(0, 0, 2, 2)
	if !errors.Is(err, ErrGone) || !strings.Contains(err.Error(), "at most 16") {
		t.Fatalf("got %v", err)
	}
	if c.Broken() == nil {
		t.Fatal("the connection was kept")
	}
}
