package proc

import (
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"syscall"

	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/safepath"
)

// MaxLog is the most of a process's output its log file holds.
const MaxLog = 16 << 20

// logFile is a new file the daemon made, never through a link, holding the first 16 MiB of
// the output. It is read through the daemon's own descriptor, never by path.
type logFile struct {
	mu     sync.Mutex
	fd     int
	dirfd  int
	name   string
	size   int64
	capped bool
	err    string // why the log stopped for good
}

func createLog(path string) (*logFile, error) {
	if !filepath.IsAbs(path) {
		return nil, rpc.Errorf(rpc.Invalid, "log %q is relative: give an absolute path", path)
	}
	path = filepath.Clean(path)
	dir, name := filepath.Split(path)
	if name == "" {
		return nil, rpc.Errorf(rpc.Invalid, "log %q names no file", path)
	}
	dirfd, err := safepath.OpenDir(dir, true, 0o755)
	if err != nil {
		return nil, fmt.Errorf("log %s: %w", path, err)
	}
	fd, err := syscall.Openat(dirfd, name, syscall.O_RDWR|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o644)
	if err != nil {
		link := safepath.IsLink(dirfd, name)
		syscall.Close(dirfd)
		switch {
		case link:
			return nil, rpc.Errorf(rpc.Denied, "log %s is a symbolic link: the daemon never writes through one", path)
		case errors.Is(err, syscall.EEXIST):
			return nil, rpc.Errorf(rpc.Exists, "log %s is already there: give a path for a new file", path)
		}
		return nil, fmt.Errorf("log %s: %w", path, err)
	}
	syscall.Fchmod(fd, 0o644) // whatever the umask
	return &logFile{fd: fd, dirfd: dirfd, name: name}, nil
}

// write appends output up to MaxLog. A failed or short write stops the log for good, so the
// file stays a true prefix of the output.
func (l *logFile) write(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != "" || l.fd < 0 {
		return
	}
	room := MaxLog - l.size
	if int64(len(b)) > room {
		b = b[:room]
		l.capped = true
	}
	for len(b) > 0 {
		n, err := syscall.Pwrite(l.fd, b, l.size)
		if err == syscall.EINTR {
			continue
		}
		if n > 0 {
			l.size += int64(n)
			b = b[n:]
		}
		if err != nil || n == 0 {
			if err == nil {
				err = errors.New("a short write")
			}
			l.err = fmt.Sprintf("the log stopped at %d bytes: %v", l.size, err)
			return
		}
	}
}

func (l *logFile) read(buf []byte, off int64) (int, int64, bool, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if off >= l.size || l.fd < 0 {
		return 0, l.size, l.capped, l.err
	}
	want := min(int64(len(buf)), l.size-off)
	n, _ := syscall.Pread(l.fd, buf[:want], off)
	return max(n, 0), l.size, l.capped, l.err
}

func (l *logFile) stat() (int64, bool, string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.size, l.capped, l.err
}

// remove undoes a log made for a start that failed.
func (l *logFile) remove() {
	syscall.Unlinkat(l.dirfd, l.name)
	l.close()
}

func (l *logFile) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.fd >= 0 {
		syscall.Close(l.fd)
		syscall.Close(l.dirfd)
		l.fd, l.dirfd = -1, -1
	}
}
