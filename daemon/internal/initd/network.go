package initd

import (
	"fmt"
	"os"

	"agentrun.dev/computerd/internal/isolate"
)

// enterOwnNetwork is --own-network's part before the drop, while init is still root: it
// refuses uid 0 and a uid another process holds, then moves every thread into a network
// namespace of its own with its loopback alone up, and says so on stderr, naming the
// interfaces left down.
func enterOwnNetwork(user string) error {
	uid, _, err := parseUIDGID(user)
	if err != nil {
		return err
	}
	if os.Getuid() != 0 {
		return fmt.Errorf("--own-network needs init to start as root, and it runs as uid %d", os.Getuid())
	}
	if err := isolate.CheckUser("/proc", uid, os.Getpid()); err != nil {
		return err
	}
	n, err := isolate.EnterOwnNetwork()
	if err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "computerd init: --own-network:", n)
	return nil
}
