//go:build !linux || !(amd64 || arm64)

package isolate

import (
	"errors"
	"fmt"
	"strings"
)

var errUnsupported = errors.New("--own-network is built for Linux on amd64 and arm64 only")

// Network is what EnterOwnNetwork read back.
type Network struct {
	Namespace string
	Threads   int
	Down      []string
}

func (n Network) String() string {
	return fmt.Sprintf("%s (%d threads; down: %s)", n.Namespace, n.Threads, strings.Join(n.Down, ", "))
}

// EnterOwnNetwork is Linux's alone.
func EnterOwnNetwork() (Network, error) { return Network{}, errUnsupported }

// InstallFilter is Linux's alone.
func InstallFilter() error { return errUnsupported }
