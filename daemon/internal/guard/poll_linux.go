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

// lineReader splits the control socket into lines with plain reads, so the guard needs no
// goroutine of its own to follow it. Descriptors sent beside a line (a run's stdio) are kept
// until next takes the spec they came with.
type lineReader struct {
	fd  int
	buf []byte
	fds []int
	eof bool
}

// maxFds is the most descriptors one read takes: a run's three, with room for a sender's error.
const maxFds = 8

// fill reads once: what is there, or blocks for the next bytes; at the end of the socket it
// sets eof.
func (r *lineReader) fill() {
	var b [4096]byte
	var oob [64]byte // CmsgSpace(maxFds * 4)
	n, oobn, _, _, err := syscall.Recvmsg(r.fd, b[:], oob[:], syscall.MSG_CMSG_CLOEXEC)
	for err == syscall.EINTR {
		n, oobn, _, _, err = syscall.Recvmsg(r.fd, b[:], oob[:], syscall.MSG_CMSG_CLOEXEC)
	}
	if oobn > 0 {
		r.fds = append(r.fds, rightsOf(oob[:oobn])...)
	}
	if n <= 0 {
		r.eof = true
		return
	}
	r.buf = append(r.buf, b[:n]...)
}

// rightsOf is every descriptor the control messages carry.
func rightsOf(oob []byte) []int {
	msgs, err := syscall.ParseSocketControlMessage(oob)
	if err != nil {
		return nil
	}
	var fds []int
	for i := range msgs {
		if got, err := syscall.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds
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

// first blocks for the next line; ok is false when the socket ends before one.
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

// next blocks for the next run's spec (a JSON line) and the descriptors sent with it; a
// command line before it was for a run already over, and is dropped. ok is false once the
// socket ends.
func (r *lineReader) next() (spec []byte, fds []int, ok bool) {
	for {
		l, ok := r.first()
		if !ok {
			return nil, nil, false
		}
		if len(l) > 0 && l[0] == '{' {
			fds, r.fds = r.fds, nil
			return l, fds, true
		}
	}
}
