// Package procctl holds the prctl settings the daemon's own processes take.
package procctl

import "syscall"

const (
	prSetDumpable       = 4
	prGetDumpable       = 3
	prSetChildSubreaper = 36
)

// ChildSubreaper makes the process the reaper of every orphan under it.
func ChildSubreaper() error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		return e
	}
	return nil
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
