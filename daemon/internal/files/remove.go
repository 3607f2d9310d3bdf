package files

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"

	"agentrun.dev/computerd/internal/rpc"
)

// RemoveParams of files.remove.
type RemoveParams struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive,omitempty"`
}

// Remove serves files.remove: a directory with entries is is_dir unless recursive; a symlink
// is removed, never followed; / is denied.
func Remove(_ context.Context, p RemoveParams) (Empty, error) {
	path, err := clean("path", p.Path)
	if err != nil {
		return Empty{}, err
	}
	if path == "/" {
		return Empty{}, rpc.Errorf(rpc.Denied, "removing / is refused")
	}
	var st syscall.Stat_t
	if err := syscall.Lstat(path, &st); err != nil {
		return Empty{}, fmt.Errorf("%s: %w", path, err)
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		return Empty{}, wrapPath(path, syscall.Unlink(path))
	}
	if p.Recursive {
		return Empty{}, os.RemoveAll(path)
	}
	err = syscall.Rmdir(path)
	if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
		return Empty{}, rpc.Errorf(rpc.IsDir, "%s is a directory with entries: pass recursive to remove it all", path)
	}
	return Empty{}, wrapPath(path, err)
}

func wrapPath(path string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s: %w", path, err)
}
