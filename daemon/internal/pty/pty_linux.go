package pty

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

// ioctl runs on the file's descriptor without Fd(), which would make the file blocking and
// lose its deadlines.
func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var e syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, e = syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg))
	}); err != nil {
		return err
	}
	if e != 0 {
		return e
	}
	return nil
}

// Open makes a terminal pair: the master the daemon keeps, the slave the program gets.
func Open(cols, rows int) (master, slave *os.File, err error) {
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("opening /dev/ptmx: %w", err)
	}
	var unlock int32
	if err := ioctl(m, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("unlocking the terminal: %w", err)
	}
	var n uint32
	if err := ioctl(m, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("naming the terminal: %w", err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		return nil, nil, fmt.Errorf("opening the terminal: %w", err)
	}
	if err := Resize(m, cols, rows); err != nil {
		m.Close()
		s.Close()
		return nil, nil, err
	}
	return m, s, nil
}

// Resize sets the terminal's size; the kernel sends SIGWINCH to its foreground group.
func Resize(f *os.File, cols, rows int) error {
	ws := struct{ rows, cols, x, y uint16 }{uint16(rows), uint16(cols), 0, 0}
	if err := ioctl(f, syscall.TIOCSWINSZ, unsafe.Pointer(&ws)); err != nil {
		return fmt.Errorf("setting the terminal's size: %w", err)
	}
	return nil
}

// Foreground is the terminal's foreground process group (TIOCGPGRP).
func Foreground(f *os.File) (int, error) {
	var pg int32
	err := ioctl(f, syscall.TIOCGPGRP, unsafe.Pointer(&pg))
	return int(pg), err
}

// Session is the session the terminal is the controlling terminal of (TIOCGSID).
func Session(f *os.File) (int, error) {
	var sid int32
	err := ioctl(f, syscall.TIOCGSID, unsafe.Pointer(&sid))
	return int(sid), err
}
