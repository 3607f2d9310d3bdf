package privdrop

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The kernel's PR_CAPBSET_READ finds the same last capability as the kernel's cap_last_cap
// (gVisor has only the first).
func TestLastCapByTheKernelIsCapLastCap(t *testing.T) {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		t.Skipf("no cap_last_cap to compare with: %v", err)
	}
	want, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	got, err := lastCapBy(func(c int) syscall.Errno {
		_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetRead, uintptr(c), 0)
		return e
	})
	if err != nil || got != want {
		t.Fatalf("lastCapBy the kernel = %d, %v; cap_last_cap says %d", got, err, want)
	}
}

func TestLastCapByRefusesWhatItCannotRead(t *testing.T) {
	for name, read := range map[string]func(int) syscall.Errno{
		"EPERM at 3":   func(c int) syscall.Errno { return map[bool]syscall.Errno{true: syscall.EPERM}[c == 3] },
		"none known":   func(int) syscall.Errno { return syscall.EINVAL },
		"past 64 bits": func(int) syscall.Errno { return 0 },
	} {
		if n, err := lastCapBy(read); err == nil {
			t.Errorf("%s: lastCapBy = %d with no refusal", name, n)
		}
	}
	if n, err := lastCapBy(func(c int) syscall.Errno { return map[bool]syscall.Errno{true: syscall.EINVAL}[c > 40] }); err != nil || n != 40 {
		t.Fatalf("a kernel that knows 0..40: lastCapBy = %d, %v", n, err)
	}
}
