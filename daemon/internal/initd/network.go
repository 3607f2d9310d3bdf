package initd

import (
	"fmt"
	"os"
	"strings"

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

// loopbackAlone is --loopback-alone's read-back: the network init started in (the runtime's,
// such as a gVisor sandbox's with none of its own) holds lo alone up or addressed; anything else
// and init refuses to start, so a runtime that gave the computer a network is never taken for none.
func loopbackAlone() error {
	ifs, err := isolate.Interfaces()
	if err != nil {
		return err
	}
	down, err := isolate.CheckLoopbackAlone(ifs)
	if err != nil {
		return fmt.Errorf("--loopback-alone: the network this computer was given is not none: %w", err)
	}
	said := "lo alone up or addressed"
	if len(down) > 0 {
		said += "; down with no address: " + strings.Join(down, ", ")
	}
	fmt.Fprintln(os.Stderr, "computerd init: --loopback-alone:", said)
	return nil
}
