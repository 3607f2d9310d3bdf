package files

import (
	"context"
	"fmt"
	"syscall"

	"agentrun.dev/computerd/internal/rpc"
)

// MaxChunk is the most one files.read, tar.pull.read or process.read returns: 512 KiB.
const MaxChunk = 512 << 10

// ReadParams of files.read.
type ReadParams struct {
	Path   string `json:"path"`
	Offset *int64 `json:"offset,omitempty"`
	Length *int64 `json:"length,omitempty"`
}

// ReadResult: size is the file's whole size.
type ReadResult struct {
	Data rpc.Bytes `json:"data"`
	EOF  bool      `json:"eof"`
	Size int64     `json:"size"`
}

// openChecked opens path (following links, as any program would) with O_NONBLOCK, so a FIFO
// or device never makes it wait, then checks what it opened by fstat: a directory is is_dir,
// anything but a regular file invalid.
func openChecked(path string, flags int, perm uint32) (int, *syscall.Stat_t, error) {
	fd, err := syscall.Open(path, flags|syscall.O_NONBLOCK|syscall.O_CLOEXEC, perm)
	if err == syscall.ENXIO {
		// O_WRONLY|O_NONBLOCK on a FIFO with no reader.
		return -1, nil, rpc.Errorf(rpc.Invalid, "%s is a FIFO or a device, not a regular file", path)
	}
	if err != nil {
		return -1, nil, fmt.Errorf("%s: %w", path, err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return -1, nil, fmt.Errorf("%s: %w", path, err)
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		return fd, &st, nil
	case syscall.S_IFDIR:
		syscall.Close(fd)
		return -1, nil, rpc.Errorf(rpc.IsDir, "%s is a directory", path)
	}
	syscall.Close(fd)
	return -1, nil, rpc.Errorf(rpc.Invalid, "%s is a FIFO, socket or device, not a regular file", path)
}

// Read serves files.read.
func Read(_ context.Context, p ReadParams) (ReadResult, error) {
	path, err := clean("path", p.Path)
	if err != nil {
		return ReadResult{}, err
	}
	var off, length int64 = 0, MaxChunk
	if p.Offset != nil {
		off = *p.Offset
	}
	if p.Length != nil {
		length = *p.Length
	}
	if off < 0 || length < 0 {
		return ReadResult{}, rpc.Errorf(rpc.Invalid, "offset and length must not be negative")
	}
	if length > MaxChunk {
		return ReadResult{}, rpc.Errorf(rpc.Limit, "length %d is past the most one read returns, %d bytes (512 KiB): read in chunks by offset", length, MaxChunk)
	}
	fd, st, err := openChecked(path, syscall.O_RDONLY, 0)
	if err != nil {
		return ReadResult{}, err
	}
	defer syscall.Close(fd)
	buf := make([]byte, length)
	n := 0
	for n < len(buf) {
		m, err := syscall.Pread(fd, buf[n:], off+int64(n))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return ReadResult{}, fmt.Errorf("reading %s: %w", path, err)
		}
		if m == 0 {
			break
		}
		n += m
	}
	size := st.Size
	if end := off + int64(n); end > size {
		size = end // it grew while read
	}
	return ReadResult{Data: buf[:n], EOF: off+int64(n) >= size, Size: size}, nil
}
