package procctl

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

const testName = "^TestNotDumpableHoldsForTheProcessAndNotItsPrograms$"

func self(t *testing.T, stage string) error {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", testName)
	cmd.Env = append(os.Environ(), "PROCCTL_STAGE="+stage)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Logf("stage %s: %s", stage, out)
	}
	return err
}

// The setting is the process's own, and a program it starts is dumpable again from its execve.
// Stage 1 runs in a child of the test binary (the test process keeps its own setting), stage 2
// in a program stage 1 started.
func TestNotDumpableHoldsForTheProcessAndNotItsPrograms(t *testing.T) {
	switch os.Getenv("PROCCTL_STAGE") {
	case "1":
		if err := NotDumpable(); err != nil {
			t.Fatal(err)
		}
		if d, err := Dumpable(); err != nil || d {
			t.Fatalf("dumpable after NotDumpable: %v %v", d, err)
		}
		if err := self(t, "2"); err != nil {
			t.Fatalf("a program started after NotDumpable: %v", err)
		}
	case "2":
		if d, err := Dumpable(); err != nil || !d {
			t.Fatalf("a program of a process that is not dumpable: dumpable %v %v", d, err)
		}
	default:
		if err := self(t, "1"); err != nil {
			t.Fatal(err)
		}
		if d, err := Dumpable(); err != nil || !d {
			t.Fatalf("the test process itself: dumpable %v %v", d, err)
		}
	}
}

// gVisor refuses PR_SET_CHILD_SUBREAPER: pid 1 reaps every orphan of its namespace all the same,
// any other process is refused.
func TestSubreaperRefusedIsFineForPidOneAlone(t *testing.T) {
	refuse := func() syscall.Errno { return syscall.EINVAL }
	if err := subreaperOr(1, refuse); err != nil {
		t.Fatalf("pid 1 refused a subreaper: %v", err)
	}
	if err := subreaperOr(42, refuse); err != syscall.EINVAL {
		t.Fatalf("pid 42 refused a subreaper: %v, not EINVAL", err)
	}
	if err := subreaperOr(1, func() syscall.Errno { return syscall.EPERM }); err != syscall.EPERM {
		t.Fatalf("pid 1 with EPERM: %v", err)
	}
}
