package launch

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"agentrun.dev/computerd/internal/guard"
	"agentrun.dev/computerd/internal/rpc"
)

// DefaultPath is PATH when the daemon itself has none.
const DefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Request is the part of exec.run and process.start that says how a program runs.
type Request struct {
	Argv []string
	Cwd  string
	Env  map[string]string
	User string
}

// Spec checks a request and makes the guard's spec and credential from it.
func Spec(q Request) (guard.Spec, *syscall.Credential, error) {
	if len(q.Argv) == 0 || q.Argv[0] == "" {
		return guard.Spec{}, nil, rpc.Errorf(rpc.Invalid, "argv needs a program: a list such as [\"sh\", \"-c\", \"...\"]")
	}
	for _, a := range q.Argv {
		if strings.IndexByte(a, 0) >= 0 {
			return guard.Spec{}, nil, rpc.Errorf(rpc.Invalid, "argv holds a NUL byte, which no program can receive")
		}
	}
	if q.Cwd != "" && !filepath.IsAbs(q.Cwd) {
		return guard.Spec{}, nil, rpc.Errorf(rpc.Invalid, "cwd %q is relative: give an absolute path", q.Cwd)
	}
	for k, v := range q.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.IndexByte(v, 0) >= 0 {
			return guard.Spec{}, nil, rpc.Errorf(rpc.Invalid, "env name %q is not a valid variable name", k)
		}
	}
	u, cred, err := resolveUser(q.User)
	if err != nil {
		return guard.Spec{}, nil, err
	}
	dir := q.Cwd
	if dir != "" {
		dir = filepath.Clean(dir)
	}
	return guard.Spec{Argv: q.Argv, Dir: dir, Env: environment(u, q.Env)}, cred, nil
}

type account struct {
	name string
	uid  int
	gid  int
	home string
}

// relayEnv are the egress relay's variables, set once by init before it serves (UseRelay).
var relayEnv map[string]string

// UseRelay gives every program started from now on the egress relay's variables. Init calls
// it once, before it takes any connection.
func UseRelay(env map[string]string) { relayEnv = env }

// environment is PATH (the daemon's), HOME, USER and LOGNAME for the user, then the egress
// relay's variables when init relays, then env over them. Nothing else of the daemon's
// environment is passed on.
func environment(u account, extra map[string]string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = DefaultPath
	}
	vars := map[string]string{"PATH": path, "HOME": u.home, "USER": u.name, "LOGNAME": u.name}
	for k, v := range relayEnv {
		vars[k] = v
	}
	for k, v := range extra {
		vars[k] = v
	}
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	env := make([]string, 0, len(keys))
	for _, k := range keys {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// resolveUser finds the account a program runs as: the daemon's own when user is empty.
func resolveUser(user string) (account, *syscall.Credential, error) {
	self := lookupUID(os.Getuid())
	if user == "" {
		return self, nil, nil
	}
	target, err := parseUser(user)
	if err != nil {
		return account{}, nil, err
	}
	if target.uid == os.Getuid() && target.gid == os.Getgid() {
		return target, nil, nil
	}
	if !canSwitchUsers() {
		return account{}, nil, rpc.Errorf(rpc.Denied, "cannot run as %s: the daemon holds no CAP_SETUID and CAP_SETGID, so programs run as its own user (uid %d)", user, os.Getuid())
	}
	return target, &syscall.Credential{Uid: uint32(target.uid), Gid: uint32(target.gid), Groups: []uint32{}}, nil
}

// parseUser reads "name", "uid" or "uid:gid".
func parseUser(user string) (account, error) {
	name, gidText, hasGid := strings.Cut(user, ":")
	uid, numErr := strconv.Atoi(name)
	var a account
	switch {
	case numErr == nil && uid >= 0:
		a = lookupUID(uid)
		if a.gid < 0 {
			a.gid = uid
		}
	default:
		found, ok := lookupName(name)
		if !ok {
			return account{}, rpc.Errorf(rpc.NotFound, "no user named %q in /etc/passwd", name)
		}
		a = found
	}
	if hasGid {
		gid, err := strconv.Atoi(gidText)
		if err != nil || gid < 0 {
			return account{}, rpc.Errorf(rpc.Invalid, "user %q: the gid after ':' must be a number", user)
		}
		a.gid = gid
	}
	return a, nil
}

func lookupUID(uid int) account {
	if a, ok := findPasswd(func(a account) bool { return a.uid == uid }); ok {
		return a
	}
	home := "/"
	if uid == os.Getuid() {
		if h := os.Getenv("HOME"); h != "" {
			home = h
		}
	}
	return account{name: strconv.Itoa(uid), uid: uid, gid: -1, home: home}
}

func lookupName(name string) (account, bool) {
	return findPasswd(func(a account) bool { return a.name == name })
}

func findPasswd(match func(account) bool) (account, bool) {
	f, err := os.Open("/etc/passwd")
	if err != nil {
		return account{}, false
	}
	defer f.Close()
	return scanPasswd(f, match)
}

// scanPasswd returns the first /etc/passwd entry that matches.
func scanPasswd(r io.Reader, match func(account) bool) (account, bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Split(sc.Text(), ":")
		if len(f) < 7 {
			continue
		}
		uid, err1 := strconv.Atoi(f[2])
		gid, err2 := strconv.Atoi(f[3])
		if err1 != nil || err2 != nil {
			continue
		}
		a := account{name: f[0], uid: uid, gid: gid, home: f[5]}
		if match(a) {
			return a, true
		}
	}
	return account{}, false
}

// canSwitchUsers: CAP_SETUID (7) and CAP_SETGID (6) in the effective set.
func canSwitchUsers() bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			eff, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && eff&(1<<6) != 0 && eff&(1<<7) != 0
		}
	}
	return false
}
