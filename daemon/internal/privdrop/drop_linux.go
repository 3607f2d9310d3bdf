package privdrop

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"unsafe"
)

const (
	prCapbsetRead        = 23
	prCapbsetDrop        = 24
	prSetNoNewPrivs      = 38
	prCapAmbient         = 47
	prCapAmbientClearAll = 4
	capV3                = 0x20080522
)

var capNames = []string{"CHOWN", "DAC_OVERRIDE", "DAC_READ_SEARCH", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID",
	"SETPCAP", "LINUX_IMMUTABLE", "NET_BIND_SERVICE", "NET_BROADCAST", "NET_ADMIN", "NET_RAW", "IPC_LOCK", "IPC_OWNER",
	"SYS_MODULE", "SYS_RAWIO", "SYS_CHROOT", "SYS_PTRACE", "SYS_PACCT", "SYS_ADMIN", "SYS_BOOT", "SYS_NICE",
	"SYS_RESOURCE", "SYS_TIME", "SYS_TTY_CONFIG", "MKNOD", "LEASE", "AUDIT_WRITE", "AUDIT_CONTROL", "SETFCAP",
	"MAC_OVERRIDE", "MAC_ADMIN", "SYSLOG", "WAKE_ALARM", "BLOCK_SUSPEND", "AUDIT_READ", "PERFMON", "BPF", "CHECKPOINT_RESTORE"}

// CapName is a capability's name, CAP_SYS_ADMIN, or its number past the known ones.
func CapName(c int) string {
	if c < len(capNames) {
		return "CAP_" + capNames[c]
	}
	return fmt.Sprintf("capability %d", c)
}

// Refusal is init's reason not to start, in words that say what to fix.
type Refusal struct{ msg string }

func (r *Refusal) Error() string { return r.msg }

const fix = "drop every capability for the daemon's user (docker run --cap-drop ALL), or start init as root holding CAP_SETPCAP so it drops them itself"

// allThreads runs one system call on every thread of the process. With cgo it cannot reach
// every thread and fails with ENOTSUP, and init refuses to start.
func allThreads(trap, a1, a2, a3 uintptr) error {
	_, _, e := syscall.AllThreadsSyscall(trap, a1, a2, a3)
	if e == syscall.ENOTSUP {
		return &Refusal{"this computerd links cgo, so one call cannot reach every thread (ENOTSUP) and its privileges cannot be dropped on all of them: build it with CGO_ENABLED=0"}
	}
	if e != 0 {
		return e
	}
	return nil
}

// Drop leaves the process no capability in any set on every thread, no_new_privs set, and,
// when uid >= 0, the uid and gid uid:gid with no supplementary groups. It reads all of it
// back and returns a Refusal when anything falls short.
func Drop(uid, gid int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := allThreads(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0); err != nil {
		return refusal("setting no_new_privs", err)
	}
	last, err := lastCap()
	if err != nil {
		return err
	}
	for c := 0; c <= last; c++ {
		r, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetRead, uintptr(c), 0)
		if e != 0 {
			return &Refusal{fmt.Sprintf("reading %s in the bounding set: %v", CapName(c), e)}
		}
		if r == 0 {
			continue // already gone: not dropped again, so no CAP_SETPCAP is needed
		}
		if err := allThreads(syscall.SYS_PRCTL, prCapbsetDrop, uintptr(c), 0); err != nil {
			var r *Refusal
			if errors.As(err, &r) {
				return r
			}
			return &Refusal{fmt.Sprintf("cannot drop %s from the bounding set: %s (%v): %s", CapName(c), errnoName(err), err, fix)}
		}
	}
	if uid >= 0 {
		// Go's set*id calls reach every thread.
		if err := syscall.Setgroups([]int{}); err != nil {
			return refusal("clearing the supplementary groups", err)
		}
		if err := syscall.Setresgid(gid, gid, gid); err != nil {
			return refusal(fmt.Sprintf("becoming gid %d", gid), err)
		}
		if err := syscall.Setresuid(uid, uid, uid); err != nil {
			return refusal(fmt.Sprintf("becoming uid %d", uid), err)
		}
	}
	// Kernels before 4.3 have no ambient set: nothing to clear there.
	if err := allThreads(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientClearAll, 0); err != nil && !errors.Is(err, syscall.EINVAL) {
		return refusal("clearing the ambient set", err)
	}
	hdr := struct {
		version uint32
		pid     int32
	}{capV3, 0}
	var data [2]struct{ effective, permitted, inheritable uint32 }
	err = allThreads(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	runtime.KeepAlive(&hdr)
	runtime.KeepAlive(&data)
	if err != nil {
		return refusal("emptying the effective, permitted and inheritable sets", err)
	}
	return ReadBack(uid, gid)
}

func refusal(what string, err error) error {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	return &Refusal{fmt.Sprintf("%s: %s (%v): %s", what, errnoName(err), err, fix)}
}

func errnoName(err error) string {
	switch {
	case errors.Is(err, syscall.EPERM):
		return "EPERM"
	case errors.Is(err, syscall.EINVAL):
		return "EINVAL"
	}
	return "error"
}

// lastCap is the highest capability the kernel knows. gVisor's /proc has no cap_last_cap, so
// there it is found as the kernel reports it: the first number PR_CAPBSET_READ refuses as EINVAL.
func lastCap() (int, error) {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if errors.Is(err, os.ErrNotExist) {
		return lastCapBy(func(c int) syscall.Errno {
			_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prCapbsetRead, uintptr(c), 0)
			return e
		})
	}
	if err != nil {
		return 0, &Refusal{fmt.Sprintf("reading /proc/sys/kernel/cap_last_cap: %v", err)}
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return 0, &Refusal{fmt.Sprintf("/proc/sys/kernel/cap_last_cap holds %q", b)}
	}
	return n, nil
}

// maxCap bounds the search: a capability set is 64 bits.
const maxCap = 63

// lastCapBy asks read about each capability from 0 up: the one before the first EINVAL is the last.
func lastCapBy(read func(int) syscall.Errno) (int, error) {
	for c := 0; c <= maxCap+1; c++ {
		switch e := read(c); e {
		case 0:
		case syscall.EINVAL:
			if c == 0 {
				return 0, &Refusal{"no cap_last_cap in /proc, and the kernel knows no capability (PR_CAPBSET_READ refuses 0)"}
			}
			return c - 1, nil
		default:
			return 0, &Refusal{fmt.Sprintf("no cap_last_cap in /proc, and reading capability %d in the bounding set failed: %v", c, e)}
		}
	}
	return 0, &Refusal{fmt.Sprintf("no cap_last_cap in /proc, and the kernel reports capabilities past %d", maxCap)}
}

const (
	prGetNoNewPrivs   = 39
	prCapAmbientIsSet = 1
)

// fillUnreported reads what gVisor's status leaves out (NoNewPrivs, CapAmb) from the kernel on
// this thread: Drop set both on every thread with one call that either reached all or failed.
func fillUnreported(st *Status) error {
	if !st.Reported("NoNewPrivs") {
		r, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prGetNoNewPrivs, 0, 0)
		if e != 0 {
			return &Refusal{fmt.Sprintf("the status has no NoNewPrivs, and PR_GET_NO_NEW_PRIVS failed: %v", e)}
		}
		st.Fill("NoNewPrivs", uint64(r))
	}
	if !st.Reported("CapAmb") {
		last, err := lastCap()
		if err != nil {
			return err
		}
		var amb uint64
		for c := 0; c <= last; c++ {
			r, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prCapAmbient, prCapAmbientIsSet, uintptr(c), 0, 0, 0)
			if e == syscall.EINVAL && c == 0 {
				break // a kernel with no ambient set (gVisor's, Linux before 4.3): it holds nothing
			}
			if e != 0 {
				return &Refusal{fmt.Sprintf("the status has no CapAmb, and PR_CAP_AMBIENT_IS_SET %s failed: %v", CapName(c), e)}
			}
			if r == 1 {
				amb |= 1 << uint(c)
			}
		}
		st.Fill("CapAmb", amb)
	}
	return nil
}

// ReadBack checks every thread's status: no capability in any set, NoNewPrivs 1, and the ids.
func ReadBack(uid, gid int) error {
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(tasks) == 0 {
		return &Refusal{"the read-back found no thread in /proc/self/task"}
	}
	for _, p := range tasks {
		f, err := os.Open(p)
		if err != nil {
			continue // a thread that ended
		}
		st, err := ParseStatus(f)
		f.Close()
		if TaskEnded(err) {
			continue
		}
		if err != nil {
			return &Refusal{fmt.Sprintf("the read-back of %s: %v", p, err)}
		}
		if err := fillUnreported(&st); err != nil {
			return err
		}
		if short := st.Check(uid, gid); len(short) > 0 {
			return &Refusal{fmt.Sprintf("the read-back of %s falls short: %s", p, strings.Join(short, "; "))}
		}
	}
	return nil
}
