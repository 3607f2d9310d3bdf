package initd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"agentrun.dev/computerd/internal/privdrop"
	"agentrun.dev/computerd/internal/safepath"
)

// dropPrivileges leaves init no capability in any set before it listens. With --user (root
// only) it first makes $HOME and the socket's directory that user's alone, then becomes it.
func dropPrivileges(user, socket string) error {
	uid, gid := -1, -1
	if user != "" {
		var err error
		if uid, gid, err = parseUIDGID(user); err != nil {
			return err
		}
		if os.Getuid() != 0 {
			return fmt.Errorf("--user %s needs init to start as root, and it runs as uid %d: a computer given its user by its vendor (docker run --user) passes no --user", user, os.Getuid())
		}
		home := homeOf(uid)
		for _, dir := range []string{home, filepath.Dir(socket)} {
			if err := makeOwned(dir, uid, gid); err != nil {
				return err
			}
		}
		os.Setenv("HOME", home)
	}
	if err := privdrop.Drop(uid, gid); err != nil {
		return err
	}
	if user == "" {
		narrowOwnHome()
	}
	return nil
}

// narrowOwnHome makes init's $HOME its user's alone when that user already owns it (a vendor
// that gave the computer its user, as docker run --user does). Docker makes the workdir before it
// mounts the home's tmpfs there, and the tmpfs then takes that directory's 0755 whatever its
// mode= option says. Best effort, never through a link: a home it cannot narrow is left as it is,
// and the provider reads the mode back from outside.
func narrowOwnHome() {
	home := filepath.Clean(os.Getenv("HOME"))
	if !filepath.IsAbs(home) || home == "/" {
		return
	}
	fd, err := safepath.OpenDir(home, false, 0)
	if err != nil {
		return
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) != nil || int(st.Uid) != os.Geteuid() || st.Mode&0o077 == 0 {
		return
	}
	_ = syscall.Fchmod(fd, 0o700)
}

func parseUIDGID(s string) (int, int, error) {
	u, g, ok := strings.Cut(s, ":")
	uid, err1 := strconv.Atoi(u)
	gid, err2 := strconv.Atoi(g)
	if !ok || err1 != nil || err2 != nil || uid < 0 || gid < 0 {
		return 0, 0, fmt.Errorf("--user %q is not uid:gid, such as 1000:1000", s)
	}
	return uid, gid, nil
}

// homeOf is the user's home from /etc/passwd, else init's own $HOME (the provider's choice),
// else /home/<uid>. Root's own home is never handed to another user.
func homeOf(uid int) string {
	rootHome := ""
	if b, err := os.ReadFile("/etc/passwd"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Split(l, ":")
			if len(f) < 7 || !filepath.IsAbs(f[5]) {
				continue
			}
			if f[2] == strconv.Itoa(uid) {
				return f[5]
			}
			if f[2] == "0" {
				rootHome = f[5]
			}
		}
	}
	h := filepath.Clean(os.Getenv("HOME"))
	if filepath.IsAbs(h) && h != "/" && (uid == 0 || (h != rootHome && h != "/root")) {
		return h
	}
	return "/home/" + strconv.Itoa(uid)
}

// makeOwned makes dir (and what is missing above it) and gives it to uid:gid, mode 0700,
// through a descriptor reached without following any link.
func makeOwned(dir string, uid, gid int) error {
	fd, err := safepath.OpenDir(dir, true, 0o755)
	if err != nil {
		return fmt.Errorf("making %s the user's: %w", dir, err)
	}
	defer syscall.Close(fd)
	if err := syscall.Fchown(fd, uid, gid); err != nil {
		return fmt.Errorf("giving %s to %d:%d: %w", dir, uid, gid, err)
	}
	if err := syscall.Fchmod(fd, 0o700); err != nil {
		return fmt.Errorf("making %s mode 0700: %w", dir, err)
	}
	return nil
}
