package initd

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"agentrun.dev/computerd/internal/sockfile"
)

// DefaultSocket is where init listens unless AGENTRUN_COMPUTERD_SOCKET says otherwise.
const DefaultSocket = "/run/agentrun/computerd.sock"

// SocketPath is the socket both init and the bridge use.
func SocketPath() string {
	if p := os.Getenv("AGENTRUN_COMPUTERD_SOCKET"); p != "" {
		return p
	}
	return DefaultSocket
}

// checkDir refuses a socket directory that is missing, not the daemon's user's alone, or not
// writable by it. Init does not make it: a non-root init cannot write under /run.
func checkDir(dir string) error {
	st, err := os.Lstat(dir)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("the socket's directory %s is missing: the provider makes it, owned by uid %d with mode 0700", dir, os.Getuid())
	}
	if err != nil {
		return fmt.Errorf("the socket's directory %s cannot be read: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("the socket's directory %s is not a directory (a symbolic link or a file): the provider makes it a directory owned by uid %d with mode 0700", dir, os.Getuid())
	}
	sys := st.Sys().(*syscall.Stat_t)
	if int(sys.Uid) != os.Getuid() || st.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("the socket's directory %s is not the daemon's user's alone (owner uid %d, mode %04o): make it owned by uid %d with mode 0700", dir, sys.Uid, st.Mode().Perm(), os.Getuid())
	}
	if err := syscall.Access(dir, 0o2|0o1); err != nil || st.Mode().Perm()&0o300 != 0o300 {
		return fmt.Errorf("the socket's directory %s is not writable by uid %d: give it mode 0700", dir, os.Getuid())
	}
	return nil
}

// listen makes the socket, mode 0600, in a directory that is the daemon's user's alone. A
// socket left by an init that is gone is replaced; a live one is refused.
func listen(path string) (*net.UnixListener, error) {
	if err := checkDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	return sockfile.Listen(path, "another computerd is listening on %s: one init per computer")
}
