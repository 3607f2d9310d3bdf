//go:build linux && (amd64 || arm64)

package isolate

import (
	"os"
	"testing"

	"agentrun.dev/computerd/internal/nocgo"
)

// The test binary is also the isolated child of TestEnterOwnNetworkAndFilter: moving every
// thread needs a binary without cgo, and the move is made in a child so the tests' own
// process keeps its network.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(isolatedChild())
	}
	os.Exit(nocgo.Main(m))
}
