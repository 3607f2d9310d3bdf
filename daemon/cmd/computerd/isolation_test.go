package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/rpctest"
)

// These tests run `computerd init --user 1000:1000 --own-network` as root in containers with
// CAP_SYS_ADMIN and CAP_NET_ADMIN, standing in for a remote vendor's VM, beside a stand-in
// vendor agent that answers anything on 2280 and 49983 and on an abstract unix socket. Docker's
// own seccomp profile is off (seccomp=unconfined), so every refusal seen inside is the daemon's
// filter or namespace, and the controls run outside them show the same calls would succeed.

var (
	helpersOnce          sync.Once
	standinBin, sys32Bin string
	helpersErr           error
)

// helperBinaries builds the stand-in (static, this machine's arch) and the 386 program.
func helperBinaries(t *testing.T) (string, string) {
	t.Helper()
	helpersOnce.Do(func() {
		dir, err := os.MkdirTemp("", "computerd-helpers-")
		if err != nil {
			helpersErr = err
			return
		}
		os.Chmod(dir, 0o755)
		standinBin, sys32Bin = filepath.Join(dir, "standin"), filepath.Join(dir, "sys32")
		for _, b := range []struct{ out, pkg, arch string }{
			{standinBin, "./testdata/standin", runtime.GOARCH},
			{sys32Bin, "../../internal/isolate/testdata/sys32", "386"},
		} {
			cmd := exec.Command("go", "build", "-o", b.out, b.pkg)
			cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH="+b.arch)
			if out, err := cmd.CombinedOutput(); err != nil {
				helpersErr = fmt.Errorf("building %s for %s: %v: %s", b.pkg, b.arch, err, out)
				return
			}
		}
	})
	if helpersErr != nil {
		t.Fatal(helpersErr)
	}
	return standinBin, sys32Bin
}

// internalNetwork makes a Docker network with no way out, removed by its exact name at the end.
func internalNetwork(t *testing.T) string {
	t.Helper()
	name := fmt.Sprintf("computerd-test-net-%d-%06d", os.Getpid(), rand.IntN(1e6))
	if out, err := exec.Command("docker", "network", "create", "--internal", name).CombinedOutput(); err != nil {
		t.Fatalf("docker network create: %v: %s", err, out)
	}
	t.Cleanup(func() { exec.Command("docker", "network", "rm", name).Run() })
	return name
}

// root runs a command in the container as root, outside init's namespace and filter.
func (c container) root(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", append([]string{"exec", c.name}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker exec %v: %v: %s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// waitForSocket waits for init's socket, or fails with the container's logs.
func (c container) waitForSocket(t *testing.T) {
	t.Helper()
	for start := time.Now(); time.Since(start) < 15*time.Second; time.Sleep(100 * time.Millisecond) {
		if exec.Command("docker", "exec", c.name, "test", "-S", "/run/agentrun/computerd.sock").Run() == nil {
			return
		}
	}
	t.Fatalf("init's socket never came; logs: %s", c.logs(t))
}

// execRun runs argv through exec.run and returns its result whatever its exit.
func execRun(t *testing.T, cl *rpctest.Client, argv ...string) execResult {
	t.Helper()
	var r execResult
	cl.Must(t, "exec.run", map[string]any{"argv": argv, "timeoutMs": 25000}, &r)
	return r
}

type probeLine struct {
	UID        int      `json:"uid"`
	GID        int      `json:"gid"`
	Kernel     string   `json:"kernel"`
	Interfaces []string `json:"interfaces"`
	Reached    []string `json:"reached"`
	Accepted   []string `json:"accepted"`
	Results    []struct {
		Target, Protocol, Outcome, Detail string
		Bytes                             int
	} `json:"results"`
	Verdict string `json:"verdict"`
}

func parseProbe(t *testing.T, r execResult) probeLine {
	t.Helper()
	var p probeLine
	if r.ExitCode == nil || *r.ExitCode != 0 || json.Unmarshal(r.Stdout, &p) != nil {
		t.Fatalf("computerd probe: %+v, stdout %s, stderr %s", r, r.Stdout, r.Stderr)
	}
	return p
}

const agentLog = "/run/agent.log"

func TestOwnNetworkReachesNothingOfTheVendorsAgent(t *testing.T) {
	standin, sys32 := helperBinaries(t)
	network := internalNetwork(t)
	c := runCommand(t, []string{"--network", network, "--cap-add", "SYS_ADMIN", "--cap-add", "NET_ADMIN", "--security-opt", "seccomp=unconfined",
		"-v", standin + ":/opt/agentrun/standin:ro", "-v", sys32 + ":/opt/agentrun/sys32:ro"},
		"sh", "-c", "/opt/agentrun/standin agent "+agentLog+" & until [ -e "+agentLog+".ready ]; do sleep 0.05; done; "+
			"/opt/agentrun/computerd init --deadline "+iso(10*time.Minute)+" --user 1000:1000 --own-network; echo init exited $?; wait")
	c.waitForSocket(t)
	bridge := c.root(t, "sh", "-c", "hostname -I | cut -d' ' -f1")
	if bridge == "" || strings.HasPrefix(bridge, "127.") {
		t.Fatalf("the container's bridge address reads %q", bridge)
	}
	cl := c.connect(t, "-u", "1000:1000")
	// The checks with public addresses run only once the probe has read lo alone: they are
	// tried where nothing can leave, never through the test's Docker network.
	isolated := false

	t.Run("init says what it read back", func(t *testing.T) {
		if logs := c.logs(t); !strings.Contains(logs, "computerd init: --own-network: every thread") || !strings.Contains(logs, "its loopback alone up") {
			t.Fatalf("init's words on its network: %q", logs)
		}
	})
	t.Run("every thread of init is in one namespace of its own, under the filter, holding nothing", func(t *testing.T) {
		// Read from outside, as root: init's pid is the one whose command line is computerd init.
		out := c.root(t, "sh", "-c", `for p in /proc/[0-9]*; do tr '\0' ' ' < $p/cmdline 2>/dev/null | grep -q '^/opt/agentrun/computerd init' && pid=${p#/proc/}; done
			readlink /proc/1/ns/net; for task in /proc/$pid/task/*; do echo "task $(readlink $task/ns/net)"; cat $task/status; done`)
		lines := strings.Split(out, "\n")
		outside, tasks := lines[0], strings.Split(strings.Join(lines[1:], "\n"), "task ")[1:]
		if len(tasks) < 2 {
			t.Fatalf("init's threads: %q", out)
		}
		var ns string
		for _, task := range tasks {
			link, status, _ := strings.Cut(task, "\n")
			if ns == "" {
				ns = link
			}
			if link != ns || link == outside {
				t.Errorf("a thread of init is in %s (another in %s; the container's own is %s)", link, ns, outside)
			}
			f := holdsNothing(t, "init's thread", status)
			if f["Seccomp"] != "2" {
				t.Errorf("a thread of init has Seccomp %q", f["Seccomp"])
			}
		}
	})
	t.Run("the probe reads lo alone and no agent port on either loopback or the bridge", func(t *testing.T) {
		var args []string
		for _, host := range []string{"127.0.0.1", "[::1]", bridge} {
			for _, port := range []string{"2280", "49983"} {
				args = append(args, "--connect", host+":"+port)
			}
		}
		p := parseProbe(t, execRun(t, cl, append([]string{"/opt/agentrun/computerd", "probe"}, args...)...))
		if strings.Join(p.Interfaces, ",") != "lo" || p.UID != 1000 || p.GID != 1000 || len(p.Reached) != 0 || len(p.Accepted) != 0 || len(p.Results) != 6 {
			t.Fatalf("the probe: %+v", p)
		}
		for _, r := range p.Results {
			if r.Outcome != "refused" {
				t.Errorf("%s: %s (%s)", r.Target, r.Outcome, r.Detail)
			}
		}
		isolated = true
	})
	t.Run("an abstract unix socket the agent holds is not reached", func(t *testing.T) {
		if got := strings.TrimSpace(string(execRun(t, cl, "/opt/agentrun/standin", "dial-abstract").Stdout)); got != "ECONNREFUSED" {
			t.Fatalf("dialling @agentrun-standin-agent: %s", got)
		}
	})
	t.Run("a vsock socket is EPERM", func(t *testing.T) {
		if got := strings.TrimSpace(string(execRun(t, cl, "/opt/agentrun/standin", "vsock").Stdout)); got != "EPERM" {
			t.Fatalf("socket(AF_VSOCK): %s", got)
		}
	})
	t.Run("io_uring_setup is EPERM", func(t *testing.T) {
		if got := strings.TrimSpace(string(execRun(t, cl, "/opt/agentrun/standin", "io_uring").Stdout)); got != "EPERM" {
			t.Fatalf("io_uring_setup: %s", got)
		}
	})
	if runtime.GOARCH == "amd64" {
		t.Run("a call of the x32 table is ENOSYS", func(t *testing.T) {
			if got := strings.TrimSpace(string(execRun(t, cl, "/opt/agentrun/standin", "x32").Stdout)); got != "ENOSYS" {
				t.Fatalf("x32 getpid: %s", got)
			}
		})
		t.Run("a 32-bit x86 program gets nothing done", func(t *testing.T) {
			r := execRun(t, cl, "/opt/agentrun/sys32")
			if strings.Contains(string(r.Stdout), "32-bit calls work") || (r.ExitCode != nil && *r.ExitCode == 0) {
				t.Fatalf("the 386 program ran: %+v, %s", r, r.Stdout)
			}
		})
	}
	t.Run("a program holds no capability and runs under the filter", func(t *testing.T) {
		f := holdsNothing(t, "a program", string(execRun(t, cl, "cat", "/proc/self/status").Stdout))
		if f["Seccomp"] != "2" || f["Uid"] != "1000\t1000\t1000\t1000" {
			t.Fatalf("Seccomp %q, Uid %q", f["Seccomp"], f["Uid"])
		}
	})
	t.Run("--diagnose reads none, in its 15 s", func(t *testing.T) {
		if !isolated {
			t.Fatal("not run: the probe did not read lo alone, and its addresses are public")
		}
		start := time.Now()
		p := parseProbe(t, execRun(t, cl, "/opt/agentrun/computerd", "probe", "--diagnose"))
		if p.Verdict != "none" || len(p.Results) != 12 || time.Since(start) > 17*time.Second {
			t.Fatalf("after %v: %+v", time.Since(start), p)
		}
	})
	t.Run("a name does not resolve", func(t *testing.T) {
		if !isolated {
			t.Fatal("not run: the probe did not read lo alone, and the name's addresses are public")
		}
		p := parseProbe(t, execRun(t, cl, "/opt/agentrun/computerd", "probe", "--connect", "example.com:443", "--connect", "1.1.1.1:53/udp"))
		if len(p.Reached) != 0 || len(p.Accepted) != 0 || p.Results[0].Outcome != "refused" || p.Results[1].Outcome != "refused" {
			t.Fatalf("%+v", p)
		}
	})
	t.Run("the agent saw no connection", func(t *testing.T) {
		if log := c.root(t, "cat", agentLog); log != "" {
			t.Fatalf("the agent was reached:\n%s", log)
		}
	})
	// The controls, outside init's namespace and filter, as root: the same calls and targets
	// succeed there, so the refusals above are the daemon's.
	t.Run("outside, the same targets and calls reach the agent", func(t *testing.T) {
		var p probeLine
		if err := json.Unmarshal([]byte(c.root(t, "/opt/agentrun/computerd", "probe", "--connect", "127.0.0.1:2280", "--connect", bridge+":49983")), &p); err != nil || len(p.Reached) != 2 {
			t.Fatalf("the control probe: %+v %v", p, err)
		}
		if got := c.root(t, "/opt/agentrun/standin", "dial-abstract"); got != "ok" {
			t.Fatalf("the control abstract dial: %s", got)
		}
		if n := strings.Count(c.root(t, "cat", agentLog), "\n") + 1; n != 3 {
			t.Fatalf("the agent logged %d connections from the controls, want 3", n)
		}
		if got := c.root(t, "/opt/agentrun/standin", "io_uring"); got == "EPERM" {
			t.Errorf("io_uring_setup outside the filter is EPERM too: the check inside proves nothing here")
		}
		if got := c.root(t, "/opt/agentrun/standin", "vsock"); got == "EPERM" {
			t.Errorf("socket(AF_VSOCK) outside the filter is EPERM too: the check inside proves nothing here")
		}
		if runtime.GOARCH == "amd64" {
			if out, _ := exec.Command("docker", "exec", c.name, "/opt/agentrun/sys32").CombinedOutput(); !strings.Contains(string(out), "32-bit calls work") {
				t.Logf("this kernel runs no 32-bit program even outside (%q): the filter's verdict rests on its unit tests", out)
			}
		}
	})
}

// Without what it needs, init refuses in words, exits 1, and starts nothing: no socket.
func TestOwnNetworkRefusals(t *testing.T) {
	standin, _ := helperBinaries(t)
	caps := []string{"--cap-add", "SYS_ADMIN", "--cap-add", "NET_ADMIN"}
	for _, tc := range []struct {
		name   string
		docker []string
		before string
		user   string
		words  []string
	}{
		{"uid 0", caps, "", "0:0", []string{"refuses uid 0"}},
		{"a uid another process holds", caps, "/opt/agentrun/standin hold 1000 & until grep -q '^Uid:.1000' /proc/$!/status; do sleep 0.05; done; ", "1000:1000",
			[]string{"refuses to start while another process holds uid 1000", "(/opt/agentrun/standin hold 1000)"}},
		{"no CAP_NET_ADMIN", []string{"--cap-add", "SYS_ADMIN"}, "", "1000:1000", []string{"needs root holding CAP_SYS_ADMIN and CAP_NET_ADMIN", "holds no CAP_NET_ADMIN"}},
		{"Docker's default capabilities", nil, "", "1000:1000", []string{"holds no CAP_SYS_ADMIN and no CAP_NET_ADMIN", "fails closed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := runCommand(t, append([]string{"-v", standin + ":/opt/agentrun/standin:ro"}, tc.docker...), "sh", "-c",
				tc.before+"/opt/agentrun/computerd init --deadline "+iso(time.Minute)+" --user "+tc.user+" --own-network; echo exit=$?; "+
					"[ -e /run/agentrun/computerd.sock ] && echo socket=there || echo socket=none")
			c.wait(t, 20*time.Second)
			logs := c.logs(t)
			if !strings.Contains(logs, "exit=1") || !strings.Contains(logs, "socket=none") {
				t.Fatalf("init: %q", logs)
			}
			for _, w := range tc.words {
				if !strings.Contains(logs, w) {
					t.Errorf("the refusal %q does not say %q", logs, w)
				}
			}
		})
	}
}

// A Docker computer (--network none) reads lo alone, and every default target is refused.
func TestProbeInADockerComputerWithNoNetwork(t *testing.T) {
	c := run(t, []string{"--user", "1000:1000", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--network", "none",
		"--tmpfs", "/run/agentrun:mode=0700,uid=1000,gid=1000", "-e", "HOME=/tmp"},
		"init", "--deadline", iso(5*time.Minute))
	cl := c.connect(t)
	if p := parseProbe(t, execRun(t, cl, "/opt/agentrun/computerd", "probe")); strings.Join(p.Interfaces, ",") != "lo" {
		t.Fatalf("a container with --network none reads %v: its public targets are not tried", p.Interfaces)
	}
	p := parseProbe(t, execRun(t, cl, "/opt/agentrun/computerd", "probe", "--connect", "1.1.1.1:443", "--connect", "8.8.8.8:443",
		"--connect", "[2606:4700:4700::1111]:443", "--connect", "1.1.1.1:53/udp", "--connect", "[2606:4700:4700::1111]:53/udp"))
	if strings.Join(p.Interfaces, ",") != "lo" || len(p.Reached)+len(p.Accepted) != 0 || len(p.Results) != 5 {
		t.Fatalf("%+v", p)
	}
	for _, r := range p.Results {
		if r.Outcome != "refused" {
			t.Errorf("%s: %s (%s)", r.Target, r.Outcome, r.Detail)
		}
	}
}
