package x11

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// MaxAuthFile is the largest Xauthority file read: any program of the computer's user can
// replace it, so it is never read unbounded.
const MaxAuthFile = 64 << 10

const cookieName = "MIT-MAGIC-COOKIE-1"

// Cookie is one Xauthority entry's name and data.
type Cookie struct {
	Name string
	Data []byte
}

// AuthPath is $XAUTHORITY, else ~/.Xauthority; empty when neither can be named.
func AuthPath(xauthority, home string) string {
	if xauthority != "" {
		return xauthority
	}
	if home != "" {
		return filepath.Join(home, ".Xauthority")
	}
	return ""
}

// ReadCookie finds the MIT-MAGIC-COOKIE-1 for display number in the file at path. A missing file
// is no cookie (the server may need none); a link, a FIFO, a device or a file past MaxAuthFile is
// refused in words without being read.
func ReadCookie(path, number string) (*Cookie, error) {
	if path == "" {
		return nil, nil
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the Xauthority file %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the Xauthority file %s is not a regular file (%s): refused unread", path, fi.Mode().Type())
	}
	if fi.Size() > MaxAuthFile {
		return nil, fmt.Errorf("the Xauthority file %s holds %d bytes, past the %d read: refused unread", path, fi.Size(), MaxAuthFile)
	}
	// O_NOFOLLOW and O_NONBLOCK: a link or a FIFO swapped in after the Lstat is still not read.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("the Xauthority file %s: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the Xauthority file %s is not a regular file: refused unread", path)
	}
	return FindCookie(io.LimitReader(f, MaxAuthFile), number)
}

// The Xauthority families that name this computer: local (a host name), wild, and loopback
// addresses over TCP.
const (
	familyInternet  = 0
	familyInternet6 = 6
	familyLocal     = 256
	familyWild      = 65535
)

// FindCookie reads Xauthority entries from r and returns the first MIT-MAGIC-COOKIE-1 for the
// display number (or for any display), nil when none is there.
func FindCookie(r io.Reader, number string) (*Cookie, error) {
	br := bufio.NewReader(r)
	var n [2]byte
	u16 := func() (uint16, error) {
		_, err := io.ReadFull(br, n[:])
		return binary.BigEndian.Uint16(n[:]), err
	}
	field := func() ([]byte, error) {
		size, err := u16()
		if err != nil {
			return nil, err
		}
		b := make([]byte, size)
		_, err = io.ReadFull(br, b)
		return b, err
	}
	for {
		family, err := u16()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, nil
			}
			return nil, fmt.Errorf("the Xauthority file is cut short")
		}
		var parts [4][]byte
		for i := range parts {
			b, err := field()
			if err != nil {
				return nil, fmt.Errorf("the Xauthority file is cut short")
			}
			parts[i] = b
		}
		num, name, data := string(parts[1]), string(parts[2]), parts[3]
		switch family {
		case familyLocal, familyWild, familyInternet, familyInternet6:
		default:
			continue
		}
		if name == cookieName && (num == "" || num == number) {
			return &Cookie{Name: name, Data: data}, nil
		}
	}
}
