package proc

import (
	"os"
	"testing"

	"agentrun.dev/computerd/internal/guard"
)

// The table starts its guards as this same binary with the argument "guard".
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "guard" {
		os.Exit(guard.Main())
	}
	os.Exit(m.Run())
}
