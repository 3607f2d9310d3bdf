package windows

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"agentrun.dev/computerd/internal/x11"
	"agentrun.dev/computerd/internal/x11/xvfbtest"
)

// A real Xvfb with two titled windows (one by WM_NAME, one by _NET_WM_NAME) and one untitled.
func display(t *testing.T) (*x11.Conn, string, map[string]uint32) {
	t.Helper()
	d := xvfbtest.Start(t).Display
	a, err := x11.ParseDisplay(d)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x11.Dial(a, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	net, err := c.InternAtom("_NET_WM_NAME", false)
	if err != nil {
		t.Fatal(err)
	}
	utf8, err := c.InternAtom("UTF8_STRING", false)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]uint32{}
	for i, name := range []string{"Scores viewer", "Réglages — scores", ""} {
		w := c.CreateWindow(10*i, 10*i, 50, 50, 0, 0)
		switch i {
		case 0:
			c.ChangeProperty(w, x11.AtomWMName, x11.AtomString, []byte(name))
		case 1:
			c.ChangeProperty(w, net, utf8, []byte(name))
		}
		c.MapWindow(w)
		ids[name] = w
	}
	if err := c.Sync(); err != nil {
		t.Fatal(err)
	}
	return c, d, ids
}

func TestTitledFindsWindowsByAPartOfTheirTitle(t *testing.T) {
	c, _, ids := display(t)
	got, err := Titled(c, "scores")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != (Window{ID: ids["Réglages — scores"], Title: "Réglages — scores"}) {
		t.Fatalf("scores: %+v", got)
	}
	if got, _ := Titled(c, "Scores"); len(got) != 1 || got[0].ID != ids["Scores viewer"] {
		t.Fatalf("Scores: %+v", got)
	}
	if got, _ := Titled(c, "nothing like it"); len(got) != 0 {
		t.Fatalf("nothing like it: %+v", got)
	}
}

func TestRaisePutsTheWindowOnTopWithTheKeyboard(t *testing.T) {
	c, _, ids := display(t)
	w := ids["Scores viewer"]
	if err := Raise(c, w); err != nil {
		t.Fatal(err)
	}
	kids, err := c.QueryTree(c.Setup.Screen.Root)
	if err != nil {
		t.Fatal(err)
	}
	if kids[len(kids)-1] != w {
		t.Fatalf("the top-most window is %d, not %d", kids[len(kids)-1], w)
	}
}

func TestMainPrintsWhatItFoundAndSaysWhenNoneIs(t *testing.T) {
	_, d, ids := display(t)
	t.Setenv("DISPLAY", d)
	t.Setenv("XAUTHORITY", "/nonexistent")
	var out, errOut bytes.Buffer
	if code := Main([]string{"--title", "viewer", "--raise"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var w Window
	if err := json.Unmarshal(out.Bytes(), &w); err != nil || w.ID != ids["Scores viewer"] {
		t.Fatalf("printed %q", out.String())
	}
	out.Reset()
	errOut.Reset()
	if code := Main([]string{"--title", "gone"}, &out, &errOut); code != 1 || !strings.Contains(errOut.String(), `no window's title holds "gone"`) {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if code := Main(nil, &out, &errOut); code != 2 {
		t.Fatalf("no title: exit %d", code)
	}
}
