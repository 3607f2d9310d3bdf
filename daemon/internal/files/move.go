package files

import (
	"context"
	"errors"
	"fmt"
	"syscall"

	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/sysx"
)

// MoveParams of files.move.
type MoveParams struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Overwrite bool   `json:"overwrite,omitempty"`
}

const atFdcwd = -100

// Move serves files.move: a rename. Without overwrite it never replaces what is at to, checked
// in the same step (renameat2 RENAME_NOREPLACE; where that is missing a file is linked and
// unlinked, a directory refused). Across filesystems is unsupported.
func Move(_ context.Context, p MoveParams) (Empty, error) {
	from, err := clean("from", p.From)
	if err != nil {
		return Empty{}, err
	}
	to, err := clean("to", p.To)
	if err != nil {
		return Empty{}, err
	}
	if p.Overwrite {
		err = syscall.Rename(from, to)
	} else {
		err = sysx.Renameat2(atFdcwd, from, atFdcwd, to, sysx.RenameNoReplace)
		if errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOSYS) {
			err = linkThenUnlink(from, to)
		}
	}
	switch {
	case err == nil:
		return Empty{}, nil
	case errors.Is(err, syscall.EEXIST):
		return Empty{}, rpc.Errorf(rpc.Exists, "%s exists: pass overwrite to replace it", to)
	case errors.Is(err, syscall.EXDEV):
		return Empty{}, rpc.Errorf(rpc.Unsupported, "%s and %s are on different filesystems: a move is a rename; copy it instead", from, to)
	}
	return Empty{}, fmt.Errorf("moving %s to %s: %w", from, to, err)
}

// linkThenUnlink is the move without RENAME_NOREPLACE: link(2) refuses an existing name.
func linkThenUnlink(from, to string) error {
	var st syscall.Stat_t
	if err := syscall.Lstat(from, &st); err != nil {
		return err
	}
	if st.Mode&syscall.S_IFMT == syscall.S_IFDIR {
		return rpc.Errorf(rpc.Unsupported, "this filesystem cannot rename a directory without replacing what is at %s: pass overwrite, or move it elsewhere", to)
	}
	if err := sysx.Linkat(atFdcwd, from, atFdcwd, to); err != nil {
		return err
	}
	return syscall.Unlink(from)
}
