// Package procctl holds the prctl settings the daemon's own processes take.
package procctl

import "syscall"

const (
	prSetDumpable       = 4
	prGetDumpable       = 3
	prSetChildSubreaper = 36
)

// ChildSubreaper makes the process the reaper of every orphan under it. gVisor's kernel (2022-12)
// has no subreapers and refuses with EINVAL; a process that is its pid namespace's init (pid 1,
// as init is in every container) is already the reaper of every orphan there.
func ChildSubreaper() error {
	return subreaperOr(syscall.Getpid(), func() syscall.Errno {
		_, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
		return e
	})
}

func subreaperOr(pid int, set func() syscall.Errno) error {
	e := set()
	if e == 0 || (e == syscall.EINVAL && pid == 1) {
		return nil
	}
	return e
}

// NotDumpable keeps the computer's own programs, which run as the same user, out of this
// process: no ptrace attach and no open of its /proc files (fd/, environ, mem), so none can read
// or write the protocol's pipes or take over the daemon. A program the process starts is
// dumpable again from its execve.
func NotDumpable() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0); e != 0 {
		return e
	}
	return nil
}

// Dumpable reports the process's own setting.
func Dumpable() (bool, error) {
	r, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prGetDumpable, 0, 0)
	if e != 0 {
		return false, e
	}
	return r != 0, nil
}
