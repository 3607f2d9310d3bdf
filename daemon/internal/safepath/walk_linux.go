package safepath

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"syscall"

	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/sysx"
)

// Names splits a clean absolute path into its names ("/" has none).
func Names(path string) ([]string, error) {
	if !filepath.IsAbs(path) {
		return nil, rpc.Errorf(rpc.Invalid, "%q is not an absolute path", path)
	}
	clean := filepath.Clean(path)
	if clean == "/" {
		return nil, nil
	}
	return strings.Split(clean[1:], "/"), nil
}

// OpenDir opens the directory at path, entering each directory from the one above with
// O_NOFOLLOW|O_DIRECTORY. With mkdir, a missing directory is made (mode mkdirMode) and
// entered the same way. A link on the way is refused as denied.
func OpenDir(path string, mkdir bool, mkdirMode uint32) (int, error) {
	names, err := Names(path)
	if err != nil {
		return -1, err
	}
	fd, err := syscall.Open("/", syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return -1, fmt.Errorf("opening /: %w", err)
	}
	for i, name := range names {
		next, err := EnterDir(fd, name, mkdir, mkdirMode)
		syscall.Close(fd)
		if err != nil {
			return -1, fmt.Errorf("%s: %w", "/"+strings.Join(names[:i+1], "/"), err)
		}
		fd = next
	}
	return fd, nil
}

// ErrLink is a symbolic link met where a directory must be entered.
var ErrLink = rpc.Errorf(rpc.Denied, "a symbolic link is on the way, and the daemon never goes through one here")

// EnterDir opens the directory name under dirfd without following a link, making it first
// when mkdir is set and it is missing.
func EnterDir(dirfd int, name string, mkdir bool, mode uint32) (int, error) {
	const flags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_NOFOLLOW | syscall.O_CLOEXEC
	fd, err := syscall.Openat(dirfd, name, flags, 0)
	if errors.Is(err, syscall.ENOENT) && mkdir {
		if err := syscall.Mkdirat(dirfd, name, mode); err != nil && !errors.Is(err, syscall.EEXIST) {
			return -1, err
		}
		fd, err = syscall.Openat(dirfd, name, flags, 0)
	}
	if errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) {
		// ENOTDIR is also what O_DIRECTORY gives a file; tell the two apart.
		if IsLink(dirfd, name) {
			return -1, ErrLink
		}
		if errors.Is(err, syscall.ELOOP) {
			return -1, ErrLink
		}
	}
	return fd, err
}

// IsLink reports whether name under dirfd is a symbolic link.
func IsLink(dirfd int, name string) bool {
	var st syscall.Stat_t
	err := sysx.Lstatat(dirfd, name, &st)
	return err == nil && st.Mode&syscall.S_IFMT == syscall.S_IFLNK
}
