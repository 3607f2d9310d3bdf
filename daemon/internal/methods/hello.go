package methods

import (
	"context"
	"runtime"

	"agentrun.dev/computerd/internal/input"
	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/version"
)

// HelloParams: the client may name itself, and may ask for frames (past the spec: the newest
// frame format it reads).
type HelloParams struct {
	Client string `json:"client,omitempty"`
	Frames *int   `json:"frames,omitempty"`
}

// HelloResult is the daemon's version, platform, machine kind and capability groups, and the
// frame format it took up, only for a client that asked: any other sees the spec's hello.
type HelloResult struct {
	Version string   `json:"version"`
	OS      string   `json:"os"`
	Kind    string   `json:"kind"`
	Arch    string   `json:"arch"`
	Groups  []string `json:"groups"`
	Frames  int      `json:"frames,omitempty"`
}

// hello declares kind browser for a browser's init; else kind desktop with screen and input only while the display answers with XTEST,
// read again on every call, so a display started after init (or gone since) shows.
func (d *Daemon) hello(ctx context.Context, p HelloParams) (HelloResult, error) {
	if p.Frames != nil && *p.Frames < 1 {
		return HelloResult{}, rpc.Errorf(rpc.Invalid, "frames %d: ask for a frame format, %d or above", *p.Frames, rpc.FrameVersion)
	}
	r := HelloResult{Version: version.Version, OS: "linux", Kind: "linux", Arch: runtime.GOARCH, Groups: []string{"exec", "files", "processes"}}
	if p.Frames != nil && rpc.AcceptFrames(ctx) {
		r.Frames = rpc.FrameVersion
	}
	if d.Browser {
		// A browser's methods are a linux computer's; its CDP is the provider's, never hello's.
		r.Kind = "browser"
	} else if ok, _ := d.Display.Answers(); ok {
		r.Kind = "desktop"
		r.Groups = append(r.Groups, "screen")
		r.Groups = append(r.Groups, input.Declared...)
	}
	return r, nil
}

// PingParams is empty.
type PingParams struct{}

// PingResult is empty.
type PingResult struct{}

func ping(context.Context, PingParams) (PingResult, error) { return PingResult{}, nil }
