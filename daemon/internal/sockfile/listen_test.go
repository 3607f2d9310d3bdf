package sockfile

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestListenIs0600AStaleOneReplacedALiveOneRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.sock")
	stale, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	stale.SetUnlinkOnClose(false)
	stale.Close()
	l, err := Listen(path, "another one listens on %s")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", st.Mode(), err)
	}
	if _, err := Listen(path, "another one listens on %s"); err == nil || err.Error() != "another one listens on "+path {
		t.Fatalf("a live socket: %v", err)
	}
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	if _, err := Listen(file, "%s"); err == nil || !strings.Contains(err.Error(), "is not a socket") {
		t.Fatalf("a file: %v", err)
	}
}
