package initd

import (
	"os"
	"testing"

	"agentrun.dev/computerd/internal/bridge"
	"agentrun.dev/computerd/internal/guard"
	"agentrun.dev/computerd/internal/nocgo"
)

// The test binary is computerd for these tests: init, its guards and the bridge.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "init":
			os.Exit(Main(os.Args[2:]))
		case "guard":
			os.Exit(guard.Main())
		case "stdio":
			os.Exit(bridge.Run(SocketPath(), os.Stdin, os.Stdout, os.Stderr))
		}
	}
	os.Exit(nocgo.Main(m))
}
