package files

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"agentrun.dev/computerd/internal/rpc"
)

// MkdirParams of files.mkdir.
type MkdirParams struct {
	Path    string  `json:"path"`
	Parents bool    `json:"parents,omitempty"`
	Mode    *uint32 `json:"mode,omitempty"`
}

// Mkdir serves files.mkdir: mode 0755 unless given; a directory already there is exists, or
// fine with parents.
func Mkdir(_ context.Context, p MkdirParams) (Empty, error) {
	path, err := clean("path", p.Path)
	if err != nil {
		return Empty{}, err
	}
	mode := uint32(0o755)
	if p.Mode != nil {
		if *p.Mode > 0o7777 {
			return Empty{}, rpc.Errorf(rpc.Invalid, "mode %o has bits past 07777", *p.Mode)
		}
		mode = *p.Mode
	}
	if p.Parents {
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			return Empty{}, nil
		}
		if err := os.MkdirAll(path, os.FileMode(mode)&os.ModePerm); err != nil {
			return Empty{}, err
		}
	} else if err := syscall.Mkdir(path, mode); err != nil {
		if errors.Is(err, syscall.EEXIST) {
			return Empty{}, rpc.Errorf(rpc.Exists, "%s exists", path)
		}
		return Empty{}, fmt.Errorf("%s: %w", path, err)
	}
	// The umask narrowed it: set the mode asked for.
	if err := os.Chmod(path, fileMode(mode)); err != nil {
		return Empty{}, err
	}
	return Empty{}, nil
}

func fileMode(m uint32) os.FileMode {
	fm := os.FileMode(m & 0o777)
	if m&syscall.S_ISUID != 0 {
		fm |= os.ModeSetuid
	}
	if m&syscall.S_ISGID != 0 {
		fm |= os.ModeSetgid
	}
	if m&syscall.S_ISVTX != 0 {
		fm |= os.ModeSticky
	}
	return fm
}
