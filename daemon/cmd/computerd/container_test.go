package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/rpctest"
)

// These tests run the static daemon in containers through the Docker engine: as PID 1 of a
// hardened container, and as root with capabilities for the privilege drop and --user.

const testVersion = "9.9.9-container"

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// daemonBinary builds computerd once, static (CGO_ENABLED=0), with a known version.
func daemonBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "computerd-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "computerd")
		cmd := exec.Command("go", "build", "-o", builtBin, "-ldflags", "-X agentrun.dev/computerd/internal/version.Version="+testVersion, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("%v: %s", err, out)
		}
		os.Chmod(dir, 0o755)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// baseImage is the toolchain's base image: AGENTRUN_BASE_IMAGE, or what scripts/base-image.sh prints.
func baseImage(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("docker"); err != nil {
		t.Skip("no docker CLI on this machine")
	}
	if err := exec.Command("docker", "info").Run(); err != nil {
		t.Skip("no Docker engine answers here")
	}
	if img := os.Getenv("AGENTRUN_BASE_IMAGE"); img != "" {
		return img
	}
	out, err := exec.Command("bash", "../../../scripts/base-image.sh").Output()
	tag := strings.TrimSpace(string(out))
	if lines := strings.Split(tag, "\n"); len(lines) > 0 {
		tag = lines[len(lines)-1]
	}
	if tag == "" {
		t.Fatalf("scripts/base-image.sh printed no tag (%v)", err)
	}
	return tag
}

type container struct {
	name string
}

// run starts a container running computerd with docker run args and the daemon's args; it is
// removed by its exact name when the test ends, pass or fail.
func run(t *testing.T, dockerArgs []string, daemonArgs ...string) container {
	t.Helper()
	return runCommand(t, dockerArgs, append([]string{"/opt/agentrun/computerd"}, daemonArgs...)...)
}

// runCommand starts a container running command, with computerd at /opt/agentrun/computerd.
func runCommand(t *testing.T, dockerArgs []string, command ...string) container {
	t.Helper()
	img := baseImage(t)
	bin := daemonBinary(t)
	c := container{name: fmt.Sprintf("computerd-test-%d-%06d", os.Getpid(), rand.IntN(1e6))}
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", c.name).Run() })
	args := append([]string{"run", "-d", "--name", c.name, "-v", bin + ":/opt/agentrun/computerd:ro"}, dockerArgs...)
	args = append(args, img)
	args = append(args, command...)
	if out, err := exec.Command("docker", args...).CombinedOutput(); err != nil {
		t.Fatalf("docker run: %v: %s", err, out)
	}
	return c
}

// connect opens `docker exec -i <c> computerd stdio` and returns a client over it.
func (c container) connect(t *testing.T, execArgs ...string) *rpctest.Client {
	t.Helper()
	args := append([]string{"exec", "-i"}, execArgs...)
	cmd := exec.Command("docker", append(args, c.name, "/opt/agentrun/computerd", "stdio")...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	return rpctest.New(out, in)
}

// wait waits up to d for the container to stop and returns its exit code.
func (c container) wait(t *testing.T, d time.Duration) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	out, err := exec.CommandContext(ctx, "docker", "wait", c.name).Output()
	if err != nil {
		t.Fatalf("the container did not stop within %v: %v", d, err)
	}
	var code int
	fmt.Sscan(string(out), &code)
	return code
}

func (c container) logs(t *testing.T) string {
	out, _ := exec.Command("docker", "logs", c.name).CombinedOutput()
	return string(out)
}

type execResult struct {
	ExitCode *int    `json:"exitCode"`
	Signal   *string `json:"signal"`
	Stdout   []byte  `json:"stdout"`
	Stderr   []byte  `json:"stderr"`
}

func sh(t *testing.T, c *rpctest.Client, script string) string {
	t.Helper()
	var r execResult
	c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", script}, "timeoutMs": 20000}, &r)
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("%s: %+v, stderr %s", script, r, r.Stderr)
	}
	return string(r.Stdout)
}

// statusFields reads the capability sets and NoNewPrivs from a status file's text.
func statusFields(status string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(status, "\n") {
		k, v, ok := strings.Cut(l, ":")
		if ok {
			out[k] = strings.TrimSpace(v)
		}
	}
	return out
}

func holdsNothing(t *testing.T, who, status string) map[string]string {
	t.Helper()
	f := statusFields(status)
	for _, k := range []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"} {
		if f[k] != "0000000000000000" {
			t.Errorf("%s: %s is %q, want every capability set zero", who, k, f[k])
		}
	}
	if f["NoNewPrivs"] != "1" {
		t.Errorf("%s: NoNewPrivs is %q, want 1", who, f["NoNewPrivs"])
	}
	return f
}

func iso(d time.Duration) string { return time.Now().Add(d).UTC().Format(time.RFC3339Nano) }

// The static daemon as PID 1 of a hardened container, reached through docker exec and the
// bridge, holds nothing, and the container stops with exit 0 at its deadline.
func TestHardenedContainerEndToEnd(t *testing.T) {
	c := run(t, []string{"--user", "1000:1000", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--network", "none",
		"--tmpfs", "/work:mode=0700,uid=1000,gid=1000", "--tmpfs", "/run/agentrun:mode=0700,uid=1000,gid=1000", "-e", "HOME=/work"},
		"init", "--deadline", iso(25*time.Second)) // room for a loaded host's docker run and exec before hello
	cl := c.connect(t)
	var h struct {
		Version, Kind string
		Groups        []string
	}
	cl.Must(t, "hello", map[string]any{"client": "e2e"}, &h)
	if h.Version != testVersion || h.Kind != "linux" {
		t.Fatalf("hello: %+v", h)
	}
	holdsNothing(t, "a program", sh(t, cl, "cat /proc/self/status"))
	holdsNothing(t, "init (PID 1)", sh(t, cl, "cat /proc/1/status"))
	// The daemon's processes run as the computer's user too; none of its programs can open their
	// files through /proc (the protocol's pipes among them), while a program's own are open to it.
	reach := `for p in /proc/[0-9]*; do
  c=$(tr '\0' ' ' < $p/cmdline 2>/dev/null)
  case "$c" in *computerd\ init\ *|*computerd\ stdio\ |computerd\ guard\ ) ls $p/fd >/dev/null 2>&1 && echo "open: $c" || echo "closed: ${c%% -*}";; esac
done; ls /proc/self/fd >/dev/null && echo "own: open"`
	got := sh(t, cl, reach)
	for _, want := range []string{"closed: /opt/agentrun/computerd init", "closed: /opt/agentrun/computerd stdio", "closed: computerd guard", "own: open"} {
		if !strings.Contains(got, want+"\n") && !strings.Contains(got, want+" \n") {
			t.Fatalf("the daemon's processes as a program of the computer sees them, no %q:\n%s", want, got)
		}
	}
	if strings.Contains("\n"+got, "\nopen: ") {
		t.Fatalf("a program of the computer opens a daemon's process's files:\n%s", got)
	}
	var w struct{ Size int64 }
	cl.Must(t, "files.write", map[string]any{"path": "/work/a.txt", "data": []byte("hello")}, &w)
	if got := sh(t, cl, "cat /work/a.txt"); got != "hello" || w.Size != 5 {
		t.Fatalf("files.write then cat: %q", got)
	}
	var started struct{ ID string }
	cl.Must(t, "process.start", map[string]any{"argv": []string{"sh", "-c", "tty; echo done"}, "pty": map[string]int{"cols": 80, "rows": 24}}, &started)
	var wait struct{ ExitCode *int }
	cl.Must(t, "process.wait", map[string]any{"id": started.ID, "timeoutMs": 10000}, &wait)
	var out struct{ Data []byte }
	cl.Must(t, "process.read", map[string]any{"id": started.ID, "stream": "pty", "offset": 0, "waitMs": 2000}, &out)
	if wait.ExitCode == nil || *wait.ExitCode != 0 || !strings.Contains(string(out.Data), "/dev/pts/") {
		t.Fatalf("a process on a terminal: %+v %q", wait, out.Data)
	}
	var pull struct{ ID string }
	cl.Must(t, "tar.pull.begin", map[string]any{"path": "/work"}, &pull)
	var chunk struct {
		Data []byte
		EOF  bool
	}
	cl.Must(t, "tar.pull.read", map[string]any{"id": pull.ID}, &chunk)
	cl.Must(t, "tar.pull.end", map[string]any{"id": pull.ID}, nil)
	var push struct{ ID string }
	cl.Must(t, "tar.push.begin", map[string]any{"path": "/work/copy"}, &push)
	cl.Must(t, "tar.push.write", map[string]any{"id": push.ID, "data": chunk.Data}, nil)
	var ended struct{ Entries int }
	cl.Must(t, "tar.push.end", map[string]any{"id": push.ID}, &ended)
	if got := sh(t, cl, "cat /work/copy/a.txt"); !chunk.EOF || ended.Entries != 1 || got != "hello" {
		t.Fatalf("a tree pulled and pushed back: eof %v, %d entries, %q", chunk.EOF, ended.Entries, got)
	}
	if e := cl.Fails(t, "exec.run", map[string]any{"argv": []string{"true"}, "user": "0"}); e.Data.Kind != "denied" {
		t.Fatalf("exec.run as another user without the capabilities: %+v", e)
	}
	if code := c.wait(t, 40*time.Second); code != 0 {
		t.Fatalf("the container stopped with %d at its deadline; logs: %s", code, c.logs(t))
	}
}

// Init started as root with Docker's default capabilities becomes --user, makes $HOME and
// the socket's directory that user's alone, and leaves nothing in any set on any thread.
func TestBecomeUserFromRootDropsEverything(t *testing.T) {
	c := run(t, nil, "init", "--deadline", iso(time.Minute), "--user", "1000:1000")
	cl := c.connect(t, "-u", "1000:1000")
	f := holdsNothing(t, "a program", sh(t, cl, "cat /proc/self/status"))
	if f["Uid"] != "1000\t1000\t1000\t1000" || f["Gid"] != "1000\t1000\t1000\t1000" || f["Groups"] != "" {
		t.Fatalf("ids: Uid %q Gid %q Groups %q", f["Uid"], f["Gid"], f["Groups"])
	}
	for _, task := range strings.Fields(sh(t, cl, "ls /proc/1/task")) {
		holdsNothing(t, "init's thread "+task, sh(t, cl, "cat /proc/1/task/"+task+"/status"))
	}
	// Docker gives root HOME=/root, and uid 1000 has no entry in /etc/passwd: root's home is
	// never handed over, so the user's is /home/1000.
	if got := sh(t, cl, "stat -c '%u:%g %a' /run/agentrun \"$HOME\"; echo $HOME; stat -c %u /root"); got != "1000:1000 700\n1000:1000 700\n/home/1000\n0\n" {
		t.Fatalf("the socket's directory and $HOME: %q", got)
	}
}

// --user 0:0 is root with no capability.
func TestUserZeroIsRootWithNoCapability(t *testing.T) {
	c := run(t, nil, "init", "--deadline", iso(time.Minute), "--user", "0:0")
	cl := c.connect(t)
	f := holdsNothing(t, "a program", sh(t, cl, "cat /proc/self/status"))
	if f["Uid"] != "0\t0\t0\t0" {
		t.Fatalf("Uid %q", f["Uid"])
	}
	if out := sh(t, cl, "touch /proc/sys/kernel/hostname 2>&1 || echo refused"); !strings.Contains(out, "refused") {
		t.Fatalf("root with no capability wrote a kernel setting: %q", out)
	}
}

func TestInitRefusesWhatItCannotDrop(t *testing.T) {
	for _, tc := range []struct {
		name   string
		docker []string
		args   []string
		words  []string
	}{
		{"a user with a bounding set and no CAP_SETPCAP", []string{"--user", "1000:1000"}, nil, []string{"cannot drop CAP_", "EPERM", "--cap-drop ALL"}},
		{"root without CAP_SETPCAP", []string{"--cap-drop", "SETPCAP"}, nil, []string{"cannot drop CAP_", "EPERM"}},
		{"--user without root", []string{"--user", "1000:1000", "--cap-drop", "ALL"}, []string{"--user", "1000:1000"}, []string{"needs init to start as root"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := run(t, tc.docker, append([]string{"init", "--deadline", iso(time.Minute)}, tc.args...)...)
			if code := c.wait(t, 20*time.Second); code != 1 {
				t.Fatalf("init exited %d, want 1; logs: %s", code, c.logs(t))
			}
			logs := c.logs(t)
			for _, w := range tc.words {
				if !strings.Contains(logs, w) {
					t.Fatalf("the refusal %q does not say %q", logs, w)
				}
			}
		})
	}
}

// --user makes the socket's directory the user's through descriptors that never follow a
// link: a symbolic link planted there is refused, and what it points at is left alone.
func TestBecomeUserNeverGoesThroughALink(t *testing.T) {
	c := runCommand(t, nil, "sh", "-c", "mkdir -p /srv/victim && ln -s /srv/victim /run/agentrun && /opt/agentrun/computerd init --deadline "+iso(time.Minute)+" --user 1000:1000; echo exit=$?; stat -c '%u %a' /srv/victim")
	if code := c.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("the shell exited %d: %s", code, c.logs(t))
	}
	logs := c.logs(t)
	if !strings.Contains(logs, "a symbolic link is on the way") || !strings.Contains(logs, "exit=1") || !strings.Contains(logs, "\n0 755") {
		t.Fatalf("a link at the socket's directory: %q", logs)
	}
}
