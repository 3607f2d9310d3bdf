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

// A computerd that links cgo cannot drop its privileges on every thread with one call, so
// init refuses to start, in words, and exits 1.
func TestInitRefusesToStartWhenLinkedWithCgo(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler here to build a cgo computerd")
	}
	bin := filepath.Join(t.TempDir(), "computerd-cgo")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=1")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	os.Chmod(dir, 0o700)
	cmd := exec.Command(bin, "init", "--deadline", "2099-01-01T00:00:00Z")
	cmd.Env = append(os.Environ(), "AGENTRUN_COMPUTERD_SOCKET="+filepath.Join(dir, "c.sock"))
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "links cgo") || !strings.Contains(string(out), "ENOTSUP") {
		t.Fatalf("a cgo init: exit %d, %q", cmd.ProcessState.ExitCode(), out)
	}
}

// The usage lists probe, and init's line names --own-network; --help prints it and exits 0.
func TestHelpListsProbeAndOwnNetwork(t *testing.T) {
	bin := daemonBinary(t)
	out, err := exec.Command(bin, "--help").Output()
	if err != nil {
		t.Fatalf("computerd --help: %v", err)
	}
	for _, want := range []string{"computerd probe [--connect <host:port>[/udp]]...", "--diagnose", "[--user uid:gid [--own-network | --loopback-alone]]", "computerd judge [--relay <host:port>]"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the usage %q does not name %q", out, want)
		}
	}
	cmd := exec.Command(bin, "probe", "--connect", "127.0.0.1:0")
	errOut, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(errOut), "out of range") {
		t.Errorf("a probe of port 0: exit %d, %q", cmd.ProcessState.ExitCode(), errOut)
	}
}
