package methods

import (
	"testing"

	"agentrun.dev/computerd/internal/rpctest"
)

func TestMain(m *testing.M) { rpctest.RunWithGuards(m) }
