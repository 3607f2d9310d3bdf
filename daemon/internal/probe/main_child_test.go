package probe

import (
	"fmt"
	"os"
	"testing"

	"agentrun.dev/computerd/internal/isolate"
	"agentrun.dev/computerd/internal/nocgo"
)

// childEnv makes the test binary a probe in a network namespace of its own, lo alone, where
// nothing can leave: the public targets and --diagnose are tried only there.
const childEnv = "PROBE_TEST_OWN_NETWORK"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		if _, err := isolate.EnterOwnNetwork(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if mode := os.Getenv(standInsEnv); mode != "" {
			os.Exit(standInsChild(mode))
		}
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(nocgo.Main(m))
}
