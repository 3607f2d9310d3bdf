package methods

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/rpctest"
)

func newDaemon() *Daemon { return New(nil, nil) }

func connect(t *testing.T) *rpctest.Client {
	return rpctest.Connect(t, newDaemon())
}

func connectB(b *testing.B) *rpctest.Client {
	return rpctest.Connect(b, newDaemon())
}

// marker is an argument no other process carries, to find a test's programs in /proc.
func marker() string { return fmt.Sprintf("%d.%06d", 500+rand.IntN(400), rand.IntN(1e6)) }

// running lists pids whose command line holds arg.
func running(arg string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if strings.Contains(string(st), ") Z ") {
			continue
		}
		if strings.Contains(string(b), arg) {
			out = append(out, e.Name())
		}
	}
	return out
}

// gone waits up to d for no process to carry arg.
func gone(t *testing.T, arg string, d time.Duration) {
	t.Helper()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if len(running(arg)) == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("processes with %q still run: %v", arg, running(arg))
}
