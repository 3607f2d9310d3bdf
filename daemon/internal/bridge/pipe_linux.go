package bridge

import (
	"os"
	"syscall"
)

// PipeSize is what the bridge asks of its stdin and stdout pipes: 1 MiB, the most an
// unprivileged process may set (fs.pipe-max-size). A chunk's line is ~700 KB, and through a
// 64 KiB pipe it takes a dozen wake-ups of the bridge and of the vendor's exec stream each.
const PipeSize = 1 << 20

// growPipe asks for a larger pipe where f is one; anything else, or a refusal, leaves it as
// it is: the bytes cross either way.
func growPipe(f any) {
	file, ok := f.(*os.File)
	if !ok {
		return
	}
	// Through the raw descriptor, which Fd() would also switch to blocking.
	if rc, err := file.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) { syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_SETPIPE_SZ, PipeSize) })
	}
}
