package methods

import (
	"context"
	"runtime"

	"agentrun.dev/computerd/internal/input"
	"agentrun.dev/computerd/internal/version"
)

// HelloParams: the client may name itself.
type HelloParams struct {
	Client string `json:"client,omitempty"`
}

// HelloResult is the daemon's version, platform, machine kind and capability groups.
type HelloResult struct {
	Version string   `json:"version"`
	OS      string   `json:"os"`
	Kind    string   `json:"kind"`
	Arch    string   `json:"arch"`
	Groups  []string `json:"groups"`
}

// hello declares kind desktop with screen and input only while the display answers with XTEST,
// read again on every call, so a display started after init (or gone since) shows.
func (d *Daemon) hello(context.Context, HelloParams) (HelloResult, error) {
	r := HelloResult{Version: version.Version, OS: "linux", Kind: "linux", Arch: runtime.GOARCH, Groups: []string{"exec", "files", "processes"}}
	if ok, _ := d.Display.Answers(); ok {
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
