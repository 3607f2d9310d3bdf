package initd

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestOwnNetworkFlags(t *testing.T) {
	dl := iso(time.Now().Add(time.Hour))
	o, err := ParseArgs([]string{"--deadline", dl, "--user", "2510:2510", "--own-network"})
	if err != nil || !o.OwnNetwork || o.User != "2510:2510" {
		t.Fatalf("--own-network: %+v %v", o, err)
	}
	// An allowlist in a network of its own (Kubernetes): the relay on the namespace's loopback,
	// the socket on a volume the proxy outside it shares.
	o, err = ParseArgs([]string{"--deadline", dl, "--user", "2510:2510", "--own-network", "--egress", "/opt/agentrun/egress/egress.sock"})
	if err != nil || !o.OwnNetwork || o.Egress != "/opt/agentrun/egress/egress.sock" {
		t.Fatalf("--own-network --egress: %+v %v", o, err)
	}
	for name, tc := range map[string]struct {
		args  []string
		words string
	}{
		"with a URL for --egress": {[]string{"--deadline", dl, "--user", "2510:2510", "--own-network", "--egress", "http://10.0.0.1:3128"}, "is not an absolute path"},
		"without --user":          {[]string{"--deadline", dl, "--own-network"}, "--own-network needs --user <uid:gid>"},
		"given a value":           {[]string{"--deadline", dl, "--user", "1:1", "--own-network", "yes"}, `unexpected argument "yes"`},
		"an unknown flag":         {[]string{"--deadline", dl, "--own-netwrok"}, "flag provided but not defined: -own-netwrok"},
		"usage names the flag":    {[]string{"--deadline", dl, "--bogus"}, "[--user uid:gid [--own-network | --loopback-alone]]"},
	} {
		if _, err := ParseArgs(tc.args); err == nil || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%s: %v, want %q", name, err, tc.words)
		}
	}
}

// The refusals that come before anything is made: uid 0, and a uid another process holds,
// named by its pid and command. Neither makes a namespace, a directory or a socket.
func TestOwnNetworkRefusesUidZeroAndAHeldUid(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("--own-network starts as root, and so does the process that holds the uid here")
	}
	dir := sockDir(t)
	p := startInit(t, dir+"/computerd.sock", "--deadline", iso(time.Now().Add(time.Hour)), "--user", "0:0", "--own-network")
	if p.exit(t, 5*time.Second) != 1 || !strings.Contains(p.stderr.String(), "refuses uid 0") {
		t.Fatalf("uid 0: %s", p.stderr)
	}
	const uid = 54321
	holder := exec.Command("sleep", "30.5")
	holder.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: uid}}
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { holder.Process.Kill(); holder.Wait() })
	p = startInit(t, dir+"/computerd.sock", "--deadline", iso(time.Now().Add(time.Hour)), "--user", "54321:54321", "--own-network")
	want := "pid " + strconv.Itoa(holder.Process.Pid) + " (sleep 30.5)"
	if p.exit(t, 5*time.Second) != 1 || !strings.Contains(p.stderr.String(), "holds uid 54321") || !strings.Contains(p.stderr.String(), want) {
		t.Fatalf("a held uid: %s, want it to name %s", p.stderr, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("a refused init left %v in its socket's directory", entries)
	}
}

// --loopback-alone makes nothing and refuses a network that is not none: here, the test's own
// (this machine's interfaces up), and a new namespace whose lo the kernel left down. Its flags
// take neither --own-network nor --egress.
func TestLoopbackAloneRefusesANetwork(t *testing.T) {
	dl := iso(time.Now().Add(time.Hour))
	if o, err := ParseArgs([]string{"--deadline", dl, "--loopback-alone"}); err != nil || !o.LoopbackAlone || o.OwnNetwork {
		t.Fatalf("--loopback-alone: %+v %v", o, err)
	}
	for _, extra := range [][]string{{"--user", "1:1", "--own-network"}, {"--egress", "/opt/agentrun/egress/egress.sock"}} {
		if _, err := ParseArgs(append([]string{"--deadline", dl, "--loopback-alone"}, extra...)); err == nil || !strings.Contains(err.Error(), "takes neither --own-network nor --egress") {
			t.Errorf("--loopback-alone %v: %v", extra, err)
		}
	}
	p := startInit(t, "", "--deadline", dl, "--loopback-alone")
	if p.exit(t, 5*time.Second) != 1 || !strings.Contains(p.stderr.String(), "--loopback-alone: the network this computer was given is not none") {
		t.Fatalf("in the test's network: %s", p.stderr)
	}
	if os.Getuid() != 0 {
		t.Skip("a new network namespace needs root")
	}
	p = startInitBefore(t, "", func(p *initProc) {
		p.cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNET}
	}, "--deadline", dl, "--loopback-alone")
	if p.exit(t, 5*time.Second) != 1 || !strings.Contains(p.stderr.String(), "lo is down") {
		t.Fatalf("in a new namespace: %s", p.stderr)
	}
}
