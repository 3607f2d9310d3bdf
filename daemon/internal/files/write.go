package files

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"agentrun.dev/computerd/internal/rpc"
)

// WriteParams of files.write.
type WriteParams struct {
	Path    string    `json:"path"`
	Data    rpc.Bytes `json:"data"`
	Offset  *int64    `json:"offset,omitempty"`
	Append  bool      `json:"append,omitempty"`
	Mode    *uint32   `json:"mode,omitempty"`
	Parents bool      `json:"parents,omitempty"`
}

// WriteResult: the file's size after the write.
type WriteResult struct {
	Size int64 `json:"size"`
}

// Write serves files.write: it replaces the file unless offset or append, makes it when
// missing (through a dangling link too), new files 0644 unless mode says otherwise.
func Write(_ context.Context, p WriteParams) (WriteResult, error) {
	path, err := clean("path", p.Path)
	if err != nil {
		return WriteResult{}, err
	}
	if p.Offset != nil && p.Append {
		return WriteResult{}, rpc.Errorf(rpc.Invalid, "give offset or append, not both")
	}
	if p.Offset != nil && *p.Offset < 0 {
		return WriteResult{}, rpc.Errorf(rpc.Invalid, "offset must not be negative")
	}
	if p.Mode != nil && *p.Mode > 0o7777 {
		return WriteResult{}, rpc.Errorf(rpc.Invalid, "mode %o has bits past 07777", *p.Mode)
	}
	if p.Parents {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return WriteResult{}, err
		}
	}
	_, statErr := os.Stat(path)
	created := os.IsNotExist(statErr)
	flags := syscall.O_WRONLY | syscall.O_CREAT
	if p.Append {
		flags |= syscall.O_APPEND
	}
	fd, _, err := openChecked(path, flags, 0o644)
	if err != nil {
		return WriteResult{}, err
	}
	defer syscall.Close(fd)
	mode := uint32(0)
	if created {
		mode = 0o644 // whatever the umask
	}
	if p.Mode != nil {
		mode = *p.Mode
	}
	if mode != 0 || p.Mode != nil {
		if err := syscall.Fchmod(fd, mode); err != nil {
			return WriteResult{}, fmt.Errorf("setting the mode of %s: %w", path, err)
		}
	}
	if p.Offset == nil && !p.Append {
		if err := syscall.Ftruncate(fd, 0); err != nil {
			return WriteResult{}, fmt.Errorf("replacing %s: %w", path, err)
		}
	}
	data := []byte(p.Data)
	off := int64(0)
	if p.Offset != nil {
		off = *p.Offset
	}
	for len(data) > 0 {
		var n int
		if p.Append {
			n, err = syscall.Write(fd, data)
		} else {
			n, err = syscall.Pwrite(fd, data, off)
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return WriteResult{}, fmt.Errorf("writing %s: %w", path, err)
		}
		data = data[n:]
		off += int64(n)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return WriteResult{}, err
	}
	return WriteResult{Size: st.Size}, nil
}
