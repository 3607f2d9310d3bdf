package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The set-up script and the library read the daemon's version through --version.
func TestVersionFlagPrintsTheBuildVersion(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "computerd")
	build := exec.Command("go", "build", "-o", bin, "-ldflags", "-X agentrun.dev/computerd/internal/version.Version=9.9.9-test", ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("computerd --version: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != "9.9.9-test" {
		t.Fatalf("computerd --version printed %q, want 9.9.9-test", got)
	}
}
