package sysx

import (
	"syscall"
	"unsafe"
)

// RenameNoReplace is renameat2's flag that refuses to replace what is at the new name.
const RenameNoReplace = 1

const atSymlinkNofollow = 0x100

func ptr(s string) (*byte, error) { return syscall.BytePtrFromString(s) }

// Renameat2 renames oldname under olddir to newname under newdir with flags.
func Renameat2(olddir int, oldname string, newdir int, newname string, flags uint) error {
	o, err := ptr(oldname)
	if err != nil {
		return err
	}
	n, err := ptr(newname)
	if err != nil {
		return err
	}
	_, _, e := syscall.Syscall6(sysRenameat2, uintptr(olddir), uintptr(unsafe.Pointer(o)), uintptr(newdir), uintptr(unsafe.Pointer(n)), uintptr(flags), 0)
	if e != 0 {
		return e
	}
	return nil
}

// Symlinkat makes name under dir a symbolic link to target.
func Symlinkat(target string, dir int, name string) error {
	t, err := ptr(target)
	if err != nil {
		return err
	}
	n, err := ptr(name)
	if err != nil {
		return err
	}
	_, _, e := syscall.Syscall(syscall.SYS_SYMLINKAT, uintptr(unsafe.Pointer(t)), uintptr(dir), uintptr(unsafe.Pointer(n)))
	if e != 0 {
		return e
	}
	return nil
}

// Readlinkat reads the target of the link name under dir.
func Readlinkat(dir int, name string) (string, error) {
	n, err := ptr(name)
	if err != nil {
		return "", err
	}
	buf := make([]byte, 4096)
	r, _, e := syscall.Syscall6(syscall.SYS_READLINKAT, uintptr(dir), uintptr(unsafe.Pointer(n)), uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0)
	if e != 0 {
		return "", e
	}
	return string(buf[:r]), nil
}

// Linkat makes newname under newdir a hard link to oldname under olddir (no link followed).
func Linkat(olddir int, oldname string, newdir int, newname string) error {
	o, err := ptr(oldname)
	if err != nil {
		return err
	}
	n, err := ptr(newname)
	if err != nil {
		return err
	}
	_, _, e := syscall.Syscall6(syscall.SYS_LINKAT, uintptr(olddir), uintptr(unsafe.Pointer(o)), uintptr(newdir), uintptr(unsafe.Pointer(n)), 0, 0)
	if e != 0 {
		return e
	}
	return nil
}

// Lstatat stats name under dir without following a link.
func Lstatat(dir int, name string, st *syscall.Stat_t) error {
	n, err := ptr(name)
	if err != nil {
		return err
	}
	_, _, e := syscall.Syscall6(sysFstatat, uintptr(dir), uintptr(unsafe.Pointer(n)), uintptr(unsafe.Pointer(st)), atSymlinkNofollow, 0, 0)
	if e != 0 {
		return e
	}
	return nil
}
