package rpctest

import (
	"os"
	"strconv"
	"strings"

	"agentrun.dev/computerd/internal/ptree"
)

// Running reports whether a process that has not ended (a zombie has) holds arg in its command
// line: tests find the programs they started, and their orphans, by a marker argument.
func Running(arg string) bool {
	for _, s := range ptree.All() {
		if s.State == 'Z' {
			continue
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(s.Pid) + "/cmdline")
		if err == nil && strings.Contains(string(b), arg) {
			return true
		}
	}
	return false
}
