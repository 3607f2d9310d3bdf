package screen

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"agentrun.dev/computerd/internal/input"
	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/x11"
	"agentrun.dev/computerd/internal/x11/xvfbtest"
)

func desktop(t *testing.T) (*Screen, *x11.Display) {
	srv := xvfbtest.Start(t)
	xvfbtest.StartFixture(t, srv.Display)
	d := x11.NewDisplay(srv.Display, "")
	return New(d), d
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the PNG does not decode: %v", err)
	}
	return img
}

// The fixture's four colours, clockwise from the top left, at the middle of each quarter.
var fixturePixels = []struct {
	x, y int
	c    color.RGBA
}{{50, 50, color.RGBA{255, 0, 0, 255}}, {150, 50, color.RGBA{0, 255, 0, 255}}, {150, 150, color.RGBA{0, 0, 255, 255}}, {50, 150, color.RGBA{255, 255, 0, 255}}, {250, 250, color.RGBA{0, 0, 0, 255}}}

func TestShotIsThePNGOfTheScreenWithTheFixturesColours(t *testing.T) {
	sc, _ := desktop(t)
	s := NewSession()
	res, err := s.Shot(context.Background(), sc, ShotParams{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 1280 || res.Height != 800 || res.Scale != 1 || res.Cursor == nil || !res.EOF {
		t.Fatalf("shot %dx%d scale %v cursor %v eof %v", res.Width, res.Height, res.Scale, res.Cursor, res.EOF)
	}
	img := decodePNG(t, res.Data)
	if img.Bounds().Dx() != 1280 || img.Bounds().Dy() != 800 {
		t.Fatalf("the PNG is %v", img.Bounds())
	}
	for _, p := range fixturePixels {
		if got := color.RGBAModel.Convert(img.At(p.x, p.y)); got != p.c {
			t.Errorf("pixel %d,%d is %v, want %v", p.x, p.y, got, p.c)
		}
	}
}

func TestARegionShotHasTheRegionsSizeAndAnOutsideOneIsInvalid(t *testing.T) {
	sc, _ := desktop(t)
	s := NewSession()
	res, err := s.Shot(context.Background(), sc, ShotParams{Region: &Region{X: 100, Y: 0, Width: 100, Height: 100}})
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, res.Data)
	if res.Width != 100 || img.Bounds().Dx() != 100 || img.Bounds().Dy() != 100 {
		t.Fatalf("region shot %dx%d, PNG %v", res.Width, res.Height, img.Bounds())
	}
	if got := color.RGBAModel.Convert(img.At(10, 10)); got != (color.RGBA{0, 255, 0, 255}) {
		t.Fatalf("the region's top left is %v, want the fixture's green", got)
	}
	_, err = s.Shot(context.Background(), sc, ShotParams{Region: &Region{X: 1200, Y: 0, Width: 100, Height: 10}})
	if rpc.KindOf(err) != rpc.Invalid || !strings.Contains(err.Error(), "not inside the screen, which is 1280x800") {
		t.Fatalf("got %v", err)
	}
}

func TestABigImageIsHeldAndReadInChunks(t *testing.T) {
	s := NewSession()
	data := bytes.Repeat([]byte("0123456789"), 120_000)
	chunk, rest := first(data)
	s.shot = rest
	got := append([]byte(nil), chunk...)
	if _, err := s.Read(context.Background(), ReadParams{ID: "other", Offset: len(got)}); rpc.KindOf(err) != rpc.NotFound {
		t.Fatalf("another id: %v", err)
	}
	for {
		r, err := s.Read(context.Background(), ReadParams{ID: rest.id, Offset: len(got)})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Data) > MaxChunk {
			t.Fatalf("a chunk of %d bytes", len(r.Data))
		}
		got = append(got, r.Data...)
		if r.EOF {
			break
		}
	}
	if !bytes.Equal(got, data) {
		t.Fatal("the chunks are not the image")
	}
	if _, err := s.Read(context.Background(), ReadParams{ID: rest.id, Offset: 0}); rpc.KindOf(err) != rpc.NotFound {
		t.Fatalf("a shot read to its end is let go: %v", err)
	}
}

func TestWatchGivesAFrameThenWaitsForAChange(t *testing.T) {
	sc, d := desktop(t)
	s := NewSession()
	ctx := context.Background()
	f1, err := s.Watch(ctx, sc, WatchParams{After: 0, MaxWidth: ptr(640), Quality: ptr(50)})
	if err != nil {
		t.Fatal(err)
	}
	if !f1.Changed || f1.Seq != 1 || f1.Format != "jpeg" || f1.FrameWidth != 640 || f1.FrameHeight != 400 || f1.Width != 1280 || f1.Height != 800 || !f1.EOF {
		t.Fatalf("first frame %+v", f1)
	}
	img, err := jpeg.Decode(bytes.NewReader(f1.Data))
	if err != nil || img.Bounds().Dx() != 640 || img.Bounds().Dy() != 400 {
		t.Fatalf("the frame decodes to %v (%v)", img, err)
	}
	same, err := s.Watch(ctx, sc, WatchParams{After: 1, WaitMs: ptr(200)})
	if err != nil || same.Changed || same.Seq != 1 {
		t.Fatalf("an unchanged screen: %+v %v", same, err)
	}
	if _, err := input.New(d).Actions(ctx, input.ActionsParams{Actions: []json.RawMessage{json.RawMessage(`{"type":"move","point":[700,300]}`)}}); err != nil {
		t.Fatal(err)
	}
	f2, err := s.Watch(ctx, sc, WatchParams{After: 1, WaitMs: ptr(5000)})
	if err != nil || !f2.Changed || f2.Seq != 2 || f2.Cursor == nil || *f2.Cursor != [2]int{700, 300} {
		t.Fatalf("after a pointer move: %+v %v", f2, err)
	}
	old, err := s.Watch(ctx, sc, WatchParams{After: 1, WaitMs: ptr(5000)})
	if err != nil || !old.Changed || old.Seq != 3 {
		t.Fatalf("an older after gets a frame at once: %+v %v", old, err)
	}
	if _, err := s.Watch(ctx, sc, WatchParams{After: 9}); rpc.KindOf(err) != rpc.Invalid {
		t.Fatalf("after past the last frame: %v", err)
	}
}

func TestNoDisplayIsUnsupported(t *testing.T) {
	_, err := NewSession().Shot(context.Background(), New(x11.NewDisplay("", "")), ShotParams{})
	if rpc.KindOf(err) != rpc.Unsupported || !strings.Contains(err.Error(), "DISPLAY is not set") {
		t.Fatalf("got %v", err)
	}
}

func ptr(n int) *int { return &n }
