package sockfile

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// Listen makes the socket at path, mode 0600. A socket there that nothing answers is
// replaced; one that answers is refused in the words live gives (with the path after them); a
// file there that is no socket is refused.
func Listen(path, live string) (*net.UnixListener, error) {
	if st, err := os.Lstat(path); err == nil {
		if st.Mode().Type() != os.ModeSocket {
			return nil, fmt.Errorf("%s is there and is not a socket: remove it, or give the socket another path", path)
		}
		c, err := net.DialTimeout("unix", path, time.Second)
		if err == nil {
			c.Close()
			return nil, fmt.Errorf(live, path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("the stale socket %s cannot be replaced: %w", path, err)
		}
	}
	old := syscall.Umask(0o177)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", path, err)
	}
	l.SetUnlinkOnClose(false)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("making %s mode 0600: %w", path, err)
	}
	return l, nil
}
