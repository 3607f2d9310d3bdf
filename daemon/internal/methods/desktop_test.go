package methods

import (
	"bytes"
	"encoding/base64"
	"image/color"
	"image/png"
	"strings"
	"testing"

	"agentrun.dev/computerd/internal/rpctest"
	"agentrun.dev/computerd/internal/x11"
	"agentrun.dev/computerd/internal/x11/xvfbtest"
)

func TestHelloDeclaresADesktopOnlyWhileTheDisplayAnswers(t *testing.T) {
	srv := xvfbtest.Start(t)
	c := rpctest.Connect(t, New(nil, x11.NewDisplay(srv.Display, "")))
	var h HelloResult
	c.Must(t, "hello", nil, &h)
	if h.Kind != "desktop" || strings.Join(h.Groups, ",") != "exec,files,processes,screen,input.pointer,input.keys" {
		t.Fatalf("with a display: %+v", h)
	}
	srv.Stop()
	c.Must(t, "hello", nil, &h)
	if h.Kind != "linux" || strings.Join(h.Groups, ",") != "exec,files,processes" {
		t.Fatalf("after the display went: %+v", h)
	}
	e := c.Fails(t, "screen.shot", map[string]any{})
	if e.Data.Kind != "unsupported" || !strings.Contains(e.Message, "no X display answers") {
		t.Fatalf("a shot with the display gone: %v", e)
	}
}

func TestAShotAndAClickOverTheWire(t *testing.T) {
	srv := xvfbtest.Start(t)
	fix := xvfbtest.StartFixture(t, srv.Display)
	c := rpctest.Connect(t, New(nil, x11.NewDisplay(srv.Display, "")))
	var shot struct {
		Data          string `json:"data"`
		EOF           bool   `json:"eof"`
		Width, Height int
		Cursor        []int `json:"cursor"`
	}
	c.Must(t, "screen.shot", map[string]any{"region": map[string]int{"x": 0, "y": 0, "width": 200, "height": 200}}, &shot)
	raw, _ := base64.StdEncoding.DecodeString(shot.Data)
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil || !shot.EOF || shot.Width != 200 || len(shot.Cursor) != 2 {
		t.Fatalf("shot %+v: %v", shot, err)
	}
	if got := color.RGBAModel.Convert(img.At(150, 150)); got != (color.RGBA{0, 0, 255, 255}) {
		t.Fatalf("the fixture's bottom right is %v, not blue", got)
	}
	var res struct {
		Done   int
		Failed *struct{ Kind string }
	}
	c.Must(t, "input.actions", map[string]any{"actions": []any{map[string]any{"type": "click", "point": []int{20, 180}}}}, &res)
	if res.Done != 1 || res.Failed != nil {
		t.Fatalf("click: %+v", res)
	}
	evs := fix.Until(t, func(evs []xvfbtest.Event) bool { return len(evs) >= 1 })
	if evs[0].Event != "down" || evs[0].Point != [2]int{20, 180} {
		t.Fatalf("logged %+v", evs)
	}
}
