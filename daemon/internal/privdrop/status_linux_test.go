package privdrop

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// The kernel's own case: a process's status, opened while it runs and read after it was
// reaped, fails with ESRCH, and the parse says so.
func TestStatusOfATaskThatEndedAfterItWasOpened(t *testing.T) {
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/" + strconv.Itoa(sleep.Process.Pid) + "/status")
	if err != nil {
		sleep.Process.Kill()
		t.Fatal(err)
	}
	defer f.Close()
	sleep.Process.Kill()
	sleep.Wait()
	_, err = ParseStatus(f)
	if !TaskEnded(err) {
		t.Fatalf("the status of a reaped process parsed to %v, not an end", err)
	}
}
