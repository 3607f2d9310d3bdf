//go:build linux && (amd64 || arm64)

package isolate

import (
	"fmt"
	"path/filepath"
	"runtime"
	"syscall"
	"unsafe"

	"agentrun.dev/computerd/internal/privdrop"
)

const (
	seccompSetModeFilter = 1
	seccompFlagTsync     = 1
)

// InstallFilter installs Program(native) on every thread at once (SECCOMP_FILTER_FLAG_TSYNC)
// and reads back from every thread's status that it holds one filter more than before. It
// needs no_new_privs, which the privilege drop has set, so it comes after the drop; every
// process init starts inherits it.
func InstallFilter() error {
	before, err := readStatus("/proc/thread-self/status")
	if err != nil {
		return err
	}
	prog := Program(native)
	fprog := struct {
		len    uint16
		filter *Instr
	}{uint16(len(prog)), &prog[0]}
	r, _, e := syscall.RawSyscall(sysSeccomp, seccompSetModeFilter, seccompFlagTsync, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("installing the seccomp filter: %s", errnoWords(e))
	}
	if r != 0 {
		return fmt.Errorf("installing the seccomp filter: thread %d could not take it", r)
	}
	return checkFilterOnAllThreads(before.SeccompFilters)
}

func checkFilterOnAllThreads(before int) error {
	paths, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(paths) == 0 {
		return fmt.Errorf("the seccomp read-back found no thread in /proc/self/task")
	}
	for _, p := range paths {
		t, err := readStatus(p)
		if privdrop.TaskEnded(err) {
			continue
		}
		if err != nil {
			return err
		}
		if err := CheckFiltered(t, before); err != nil {
			return fmt.Errorf("the seccomp read-back of %s: %w", p, err)
		}
	}
	return nil
}
