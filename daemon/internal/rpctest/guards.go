package rpctest

import (
	"os"
	"testing"

	"agentrun.dev/computerd/internal/guard"
)

// RunWithGuards is a TestMain for a package whose tests start guards: the daemon starts them
// as this same binary with the argument "guard", so such a start runs the guard instead of
// the tests.
func RunWithGuards(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "guard" {
		os.Exit(guard.Main())
	}
	os.Exit(m.Run())
}
