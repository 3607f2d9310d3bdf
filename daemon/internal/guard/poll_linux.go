package guard

import (
	"bytes"
	"syscall"
	"time"
	"unsafe"
)

const pollIn = 0x1

// pollFd is struct pollfd.
type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

// poll waits up to d for one of fds to be ready; EINTR and a timeout are both just a return.
func poll(fds []pollFd, d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	var p unsafe.Pointer
	if len(fds) > 0 {
		p = unsafe.Pointer(&fds[0])
	}
	syscall.Syscall6(syscall.SYS_PPOLL, uintptr(p), uintptr(len(fds)), uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
}

// sysPidfdOpen is pidfd_open's number on every architecture.
const sysPidfdOpen = 434

// pidfdOpen gives a descriptor that polls readable once pid has ended, or -1 where the kernel
// has none (before 5.3).
func pidfdOpen(pid int) int {
	fd, _, e := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if e != 0 {
		return -1
	}
	syscall.CloseOnExec(int(fd))
	return int(fd)
}

// lineReader splits the control pipe into lines with plain reads, so the guard needs no
// goroutine of its own to follow it.
type lineReader struct {
	fd  int
	buf []byte
	eof bool
}

// fill reads once: what is there, or blocks for the next bytes; at the end of the pipe it
// sets eof.
func (r *lineReader) fill() {
	var b [4096]byte
	n, err := syscall.Read(r.fd, b[:])
	for err == syscall.EINTR {
		n, err = syscall.Read(r.fd, b[:])
	}
	if n <= 0 {
		r.eof = true
		return
	}
	r.buf = append(r.buf, b[:n]...)
}

// line takes the next whole line read so far, without its newline, or nil.
func (r *lineReader) line() []byte {
	i := bytes.IndexByte(r.buf, '\n')
	if i < 0 {
		return nil
	}
	line := r.buf[:i:i]
	r.buf = r.buf[i+1:]
	return line
}

// first blocks for the first line; ok is false when the pipe ends before one.
func (r *lineReader) first() (line []byte, ok bool) {
	for {
		if l := r.line(); l != nil {
			return l, true
		}
		if r.eof {
			return nil, false
		}
		r.fill()
	}
}
