package methods

import (
	"context"
	"runtime"

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

func hello(context.Context, HelloParams) (HelloResult, error) {
	return HelloResult{Version: version.Version, OS: "linux", Kind: "linux", Arch: runtime.GOARCH, Groups: []string{"exec", "files", "processes"}}, nil
}

// PingParams is empty.
type PingParams struct{}

// PingResult is empty.
type PingResult struct{}

func ping(context.Context, PingParams) (PingResult, error) { return PingResult{}, nil }
