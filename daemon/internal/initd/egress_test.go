package initd

import (
	"encoding/base64"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/egress/relay"
)

func TestEgressIsAnAbsolutePath(t *testing.T) {
	dl := iso(time.Now().Add(time.Hour))
	if _, err := ParseArgs([]string{"--deadline", dl, "--egress", "egress.sock"}); err == nil || !strings.Contains(err.Error(), "is not an absolute path") {
		t.Fatalf("a relative socket: %v", err)
	}
	o, err := ParseArgs([]string{"--deadline", dl, "--egress", "/opt/agentrun/egress/egress.sock"})
	if err != nil || o.Egress != "/opt/agentrun/egress/egress.sock" {
		t.Fatalf("%+v %v", o, err)
	}
}

// holdRelayPort takes 127.0.0.1:3128 for the test, or skips when another process holds it.
func holdRelayPort(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", relay.Addr)
	if err != nil {
		t.Skipf("%s is held by another process on this machine: %v", relay.Addr, err)
	}
	return l
}

// standInProxy listens on the egress socket until the test ends, writing answer to each
// connection and closing it.
func standInProxy(t *testing.T, socket, answer string) {
	t.Helper()
	l, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, answer)
			c.Close()
		}
	}()
}

// Init refuses to start when it cannot listen for the computer's programs.
func TestInitWithEgressRefusesToStartWhenItCannotListen(t *testing.T) {
	held := holdRelayPort(t)
	defer held.Close()
	p := startInit(t, "", "--deadline", iso(time.Now().Add(time.Hour)), "--egress", "/nonexistent/egress.sock")
	if p.exit(t, 5*time.Second) != 1 || !strings.Contains(p.stderr.String(), "--egress: cannot listen on 127.0.0.1:3128") {
		t.Fatalf("with 3128 held: %s", p.stderr)
	}
}

// Every program init starts gets the proxy variables, and a connection to 3128 reaches the
// egress socket.
func TestInitWithEgressRelaysAndGivesTheProxyVariables(t *testing.T) {
	holdRelayPort(t).Close()
	socket := filepath.Join(t.TempDir(), "egress.sock")
	standInProxy(t, socket, "the proxy\n")
	p := startInit(t, "", "--deadline", iso(time.Now().Add(time.Hour)), "--egress", socket)
	c := p.dial(t)
	var r struct {
		Stdout string `json:"stdout"`
	}
	c.Must(t, "exec.run", map[string]any{"argv": []string{"env"}, "env": map[string]string{"HTTPS_PROXY": "mine"}}, &r)
	out, _ := base64.StdEncoding.DecodeString(r.Stdout)
	for _, want := range []string{"HTTP_PROXY=http://127.0.0.1:3128\n", "http_proxy=http://127.0.0.1:3128\n", "https_proxy=http://127.0.0.1:3128\n", "NO_PROXY=localhost,127.0.0.1,::1\n", "HTTPS_PROXY=mine\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("env lacks %q: %s", want, out)
		}
	}
	conn, err := net.DialTimeout("tcp", relay.Addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	conn.SetDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(conn)
	conn.Close()
	if string(b) != "the proxy\n" {
		t.Fatalf("through 3128: %q", b)
	}
}

// Without --egress no program gets a proxy variable.
func TestInitWithoutEgressGivesNoProxyVariable(t *testing.T) {
	p := startInit(t, "", "--deadline", iso(time.Now().Add(time.Hour)))
	c := p.dial(t)
	var r struct {
		Stdout string `json:"stdout"`
	}
	c.Must(t, "exec.run", map[string]any{"argv": []string{"env"}}, &r)
	out, _ := base64.StdEncoding.DecodeString(r.Stdout)
	if strings.Contains(strings.ToLower(string(out)), "proxy") {
		t.Fatalf("env: %s", out)
	}
}

// An allowlisted computer starts beside its proxy: until the proxy answers on its socket, init
// serves no client (a hello waits, and no exec.run can start), and once it answers, init serves.
func TestInitServesNothingUntilTheProxyAnswers(t *testing.T) {
	holdRelayPort(t).Close()
	socket := filepath.Join(t.TempDir(), "egress.sock")
	p := startInit(t, "", "--deadline", iso(time.Now().Add(time.Hour)), "--egress", socket)
	c := p.dial(t)
	_, replies := c.Start("exec.run", map[string]any{"argv": []string{"touch", filepath.Join(p.home, "ran")}})
	select {
	case r := <-replies:
		t.Fatalf("init answered before its proxy did: %s", r.Result)
	case <-time.After(500 * time.Millisecond):
	}
	if _, err := os.Stat(filepath.Join(p.home, "ran")); err == nil {
		t.Fatal("a program ran before the proxy answered")
	}
	standInProxy(t, socket, "")
	select {
	case r := <-replies:
		if r.Error != nil {
			t.Fatalf("exec.run once the proxy answered: %v", r.Error)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("init never served once the proxy answered: %s", p.stderr)
	}
	if _, err := os.Stat(filepath.Join(p.home, "ran")); err != nil {
		t.Fatal("the program did not run once the proxy answered")
	}
}

// Stopped while it waits for its proxy, init ends, having run nothing.
func TestInitStoppedWhileItWaitsForItsProxyEnds(t *testing.T) {
	holdRelayPort(t).Close()
	p := startInit(t, "", "--deadline", iso(time.Now().Add(time.Hour)), "--egress", filepath.Join(t.TempDir(), "egress.sock"))
	p.dial(t)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.exit(t, 5*time.Second); code != 0 {
		t.Fatalf("exit %d: %s", code, p.stderr)
	}
}

// An allowlist in a network of its own (Kubernetes' sidecar): init enters its own namespace, its
// programs see lo alone, and 127.0.0.1:3128 of that loopback relays to the socket, a path the
// proxy outside the namespace listens on.
func TestInitInItsOwnNetworkRelaysToTheEgressSocket(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("--own-network starts as root")
	}
	// The socket's folder is the proxy's and open to the computer's user, as an emptyDir is.
	shared := t.TempDir()
	os.Chmod(filepath.Dir(shared), 0o755) // the test's own folder, which holds the socket's and sockDir's
	os.Chmod(shared, 0o755)
	socket := filepath.Join(shared, "egress.sock")
	standInProxy(t, socket, "the proxy\n")
	os.Chmod(socket, 0o777)
	dir := sockDir(t)
	p := startInit(t, dir+"/computerd.sock", "--deadline", iso(time.Now().Add(time.Hour)), "--user", "54323:54323", "--own-network", "--egress", socket)
	c := p.dial(t)
	var r struct {
		ExitCode int    `json:"exitCode"`
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
	}
	c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", "cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' '"}}, &r)
	if out, _ := base64.StdEncoding.DecodeString(r.Stdout); string(out) != "lo\n" {
		t.Fatalf("the interfaces its programs see: %q", out)
	}
	c.Must(t, "exec.run", map[string]any{"argv": []string{"bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128 && cat <&3"}, "timeoutMs": 5000}, &r)
	out, _ := base64.StdEncoding.DecodeString(r.Stdout)
	if string(out) != "the proxy\n" {
		errs, _ := base64.StdEncoding.DecodeString(r.Stderr)
		t.Fatalf("through 3128 in its own network: %q (exit %d: %s); init: %s", out, r.ExitCode, errs, p.stderr)
	}
}
