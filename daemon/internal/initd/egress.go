package initd

import (
	"os"
	"time"

	"agentrun.dev/computerd/internal/egress/relay"
)

// proxyPoll is how often init tries the egress socket while its proxy starts.
const proxyPoll = 10 * time.Millisecond

// waitForProxy holds init until the egress proxy answers on its socket; false when init is
// stopped or its deadline passes first.
func waitForProxy(socket string, stop <-chan os.Signal, fired <-chan struct{}) bool {
	t := time.NewTicker(proxyPoll)
	defer t.Stop()
	for !relay.Answers(socket) {
		select {
		case <-stop:
			return false
		case <-fired:
			return false
		case <-t.C:
		}
	}
	return true
}
