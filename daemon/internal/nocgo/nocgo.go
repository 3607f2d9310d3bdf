package nocgo

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"testing"
)

const childEnv = "COMPUTERD_NOCGO_CHILD"

func settings() map[string]string {
	out := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			out[s.Key] = s.Value
		}
	}
	return out
}

// Linked reports whether this binary links cgo.
func Linked() bool { return settings()["CGO_ENABLED"] == "1" }

// Race reports a -race build, which needs cgo: the tests of the drop skip there.
func Race() bool { return settings()["-race"] == "true" }

// Main runs the tests in a binary without cgo and returns the exit code for os.Exit.
func Main(m *testing.M) int {
	s := settings()
	if s["CGO_ENABLED"] != "1" || Race() || os.Getenv(childEnv) == "1" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "nocgo-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "nocgo:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "test")
	args := []string{"test", "-c", "-o", bin}
	if v := s["-tags"]; v != "" {
		args = append(args, "-tags", v)
	}
	if v := s["-ldflags"]; v != "" {
		args = append(args, "-ldflags", v)
	}
	build := exec.Command("go", append(args, ".")...)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "nocgo: building the test binary without cgo:", err)
		return 1
	}
	run := exec.Command(bin, os.Args[1:]...)
	run.Env = append(os.Environ(), childEnv+"=1")
	run.Stdin, run.Stdout, run.Stderr = os.Stdin, os.Stdout, os.Stderr
	err = run.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "nocgo:", err)
		return 1
	}
	return 0
}
