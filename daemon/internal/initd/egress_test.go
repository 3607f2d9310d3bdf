package initd

import (
	"encoding/base64"
	"io"
	"net"
	"path/filepath"
	"strings"
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
	ul, err := net.Listen("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go func() {
		for {
			c, err := ul.Accept()
			if err != nil {
				return
			}
			io.WriteString(c, "the proxy\n")
			c.Close()
		}
	}()
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
