package egress

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/pem"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func iso(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func TestParseArgsRefusesEverythingTogether(t *testing.T) {
	_, err := ParseArgs([]string{"--socket", "rel.sock", "--deadline", "soon", "--allow", "10.0.0.0/8", "--allow", "pypi.org:443", "--host-address", "nope", "--hint", "bad\x07", "--reachable-for-tests", "8.8.8.0/24"}, "")
	if err == nil {
		t.Fatal("taken")
	}
	for _, words := range []string{"--socket is the absolute path", `--deadline "soon"`, `"10.0.0.0/8" is over 10.0.0.0/8, a private range`, `"pypi.org:443" has a port`, `--host-address "nope"`, "--hint: the hint is printable ASCII alone", "8.8.8.0/24 is not a private or loopback range"} {
		if !strings.Contains(err.Error(), words) {
			t.Errorf("missing %q in %v", words, err)
		}
	}
	if _, err := ParseArgs([]string{"--socket", "/x.sock", "--deadline", iso(time.Now()), "--bogus"}, ""); err == nil || !strings.Contains(err.Error(), "usage: computerd egress") {
		t.Errorf("an unknown flag: %v", err)
	}
	if _, err := ParseArgs([]string{"--socket", "/x.sock", "--deadline", iso(time.Now())}, ""); err == nil || !strings.Contains(err.Error(), "ask for none") {
		t.Errorf("an empty list: %v", err)
	}
}

func TestParseArgs(t *testing.T) {
	o, err := ParseArgs([]string{"--socket", "/e/egress.sock", "--deadline", "2030-01-02T03:04:05Z", "--allow", "pypi.org", "--allow", "*.pythonhosted.org", "--allow", "10.213.0.0/24", "--host-address", "203.0.113.7", "--host-address", "::ffff:198.51.100.1", "--hint", "ask", "--reachable-for-tests", "10.213.0.0/24"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(o.List.Entries(), " "); got != "*.pythonhosted.org pypi.org 10.213.0.0/24" || len(o.HostAddrs) != 2 || o.HostAddrs[1].String() != "198.51.100.1" || o.Hint != "ask" {
		t.Fatalf("%+v", o)
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
func (l *lockedBuffer) String() string { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// The proxy makes its socket 0600, says its ready line, refuses what is off its list in the
// spec's words, and ends at its deadline, removing its socket.
func TestMainServesUntilItsDeadline(t *testing.T) {
	dir := t.TempDir()
	socket := filepath.Join(dir, "egress.sock")
	var out, errs lockedBuffer
	done := make(chan int)
	go func() {
		done <- Main([]string{"--socket", socket, "--deadline", iso(time.Now().Add(1500 * time.Millisecond)), "--allow", "pypi.org", "--hint", "ask the operator"}, &out, &errs)
	}()
	for start := time.Now(); !strings.Contains(out.String(), "ready"); time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("no ready line: %q %q", out.String(), errs.String())
		}
	}
	if line := strings.SplitN(out.String(), "\n", 2)[0]; !strings.HasPrefix(line, "computerd egress: ready on "+socket) {
		t.Fatalf("ready line %q", line)
	}
	st, err := os.Stat(socket)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v %v", st.Mode(), err)
	}
	c, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(c, "CONNECT evil.example:443 HTTP/1.1\r\n\r\n")
	line, _ := bufio.NewReader(c).ReadString('\n')
	c.Close()
	if line != "HTTP/1.1 403 Forbidden\r\n" {
		t.Fatalf("%q", line)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the proxy outlived its deadline")
	}
	if _, err := os.Lstat(socket); err == nil {
		t.Fatal("the socket was left")
	}
	if !strings.Contains(out.String(), `{"host":"evil.example","port":443,"address":"","class":"off-list"}`) {
		t.Fatalf("log %q", out.String())
	}
}

func TestMainRefusesToStart(t *testing.T) {
	dir := t.TempDir()
	live := filepath.Join(dir, "live.sock")
	l, err := net.Listen("unix", live)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for name, tc := range map[string]struct {
		args  []string
		words string
	}{
		"a passed deadline": {[]string{"--socket", filepath.Join(dir, "a.sock"), "--deadline", iso(time.Now().Add(-time.Second)), "--allow", "pypi.org"}, "has passed"},
		"a live socket":     {[]string{"--socket", live, "--deadline", iso(time.Now().Add(time.Hour)), "--allow", "pypi.org"}, "another proxy is listening"},
		"no directory":      {[]string{"--socket", filepath.Join(dir, "no", "a.sock"), "--deadline", iso(time.Now().Add(time.Hour)), "--allow", "pypi.org"}, "listening on"},
	} {
		var out, errs lockedBuffer
		if code := Main(tc.args, &out, &errs); code != 1 || !strings.Contains(errs.String(), tc.words) || out.String() != "" {
			t.Errorf("%s: exit %d, %q", name, code, errs.String())
		}
	}
}

// Rules come from the argv and credentials from the environment, each checked against the list;
// a refused credential is named by its place, never its value.
func TestParseArgsRulesAndCredentials(t *testing.T) {
	base := []string{"--socket", "/e/egress.sock", "--deadline", "2030-01-02T03:04:05Z", "--allow", "api.example.com", "--rule", "api.example.com GET /v1/items"}
	o, err := ParseArgs(base, `[{"host":"api.example.com","header":"X-Api-Key","value":"k-123"}]`)
	if err != nil || len(o.Rules) != 1 || len(o.Credentials) != 1 || o.Credentials[0].Value != "k-123" {
		t.Fatalf("%+v %v", o, err)
	}
	for _, tc := range []struct {
		args  []string
		creds string
		words string
	}{
		{append(base, "--rule", "other.example.com GET /"), "", `--rule: rule "other.example.com GET /": host "other.example.com" is not a name`},
		{base, `[{"host":"api.example.com","header":"Host","value":"k-secret"}]`, "AGENTRUN_EGRESS_CREDENTIALS: credential 0: header \"Host\" is one the proxy sets"},
		{base, `{"host"`, "AGENTRUN_EGRESS_CREDENTIALS is not a JSON array"},
	} {
		_, err := ParseArgs(tc.args, tc.creds)
		if err == nil || !strings.Contains(err.Error(), tc.words) || strings.Contains(err.Error(), "k-secret") {
			t.Errorf("%v: %v, want %q", tc.args, err, tc.words)
		}
	}
}

// With --ca-file the proxy makes its own CA at its start and writes its certificate there (never
// its key), says where and which before it is ready, and lets a tunnel to a host with rules pass
// its rules (to the lookup, which .invalid never passes: without a CA, the rules refuse it with a
// 403); two starts make two CAs. Its flags are checked with the rest.
func TestMainPublishesItsCA(t *testing.T) {
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.pem")
	start := func() (string, []byte) {
		socket := filepath.Join(dir, "egress.sock")
		var out, errs lockedBuffer
		done := make(chan int)
		go func() {
			done <- Main([]string{"--socket", socket, "--deadline", iso(time.Now().Add(time.Second)), "--allow", "api.example.invalid", "--rule", "api.example.invalid GET /v1", "--ca-file", caFile}, &out, &errs)
		}()
		for start := time.Now(); !strings.Contains(out.String(), "ready"); time.Sleep(5 * time.Millisecond) {
			if time.Since(start) > 5*time.Second {
				t.Fatalf("no ready line: %q %q", out.String(), errs.String())
			}
		}
		pemBytes, err := os.ReadFile(caFile)
		if err != nil {
			t.Fatal(err)
		}
		block, rest := pem.Decode(pemBytes)
		if block == nil || block.Type != "CERTIFICATE" || len(rest) != 0 || bytes.Contains(pemBytes, []byte("PRIVATE")) {
			t.Fatalf("the CA file holds %q", pemBytes)
		}
		sum := sha256.Sum256(block.Bytes)
		if want := fmt.Sprintf("computerd egress: its CA (sha256 %x) is at %s\n", sum, caFile); !strings.Contains(out.String(), want) {
			t.Fatalf("%q, want %q", out.String(), want)
		}
		c, err := net.Dial("unix", socket)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, "CONNECT api.example.invalid:443 HTTP/1.1\r\n\r\n")
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Close()
		<-done
		return line, block.Bytes
	}
	line, first := start()
	if line != "HTTP/1.1 502 Bad Gateway\r\n" {
		t.Fatalf("a tunnel to a host with rules: %q", line)
	}
	if _, second := start(); bytes.Equal(first, second) {
		t.Fatal("two starts made the same CA")
	}
	o, err := ParseArgs([]string{"--socket", "/e.sock", "--deadline", iso(time.Now()), "--allow", "a.example", "--reachable-for-tests", "127.0.2.0/24", "--resolve-for-tests", "A.example=127.0.2.1"}, "")
	if err != nil || o.TestNames["a.example"].String() != "127.0.2.1" || len(o.TestNames) != 1 {
		t.Fatalf("the names seam: %v %v", o.TestNames, err)
	}
	_, err = ParseArgs([]string{"--socket", "/e.sock", "--deadline", iso(time.Now()), "--allow", "a.example", "--ca-file", "ca.pem", "--upstream-root-for-tests", "not pem", "--resolve-for-tests", "a.example=10.0.0.1"}, "")
	for _, words := range []string{`--ca-file "ca.pem" is not an absolute path`, "--upstream-root-for-tests is not a PEM certificate", `--resolve-for-tests "a.example=10.0.0.1" is not <name>=<address> with the address in --reachable-for-tests`} {
		if err == nil || !strings.Contains(err.Error(), words) {
			t.Errorf("missing %q in %v", words, err)
		}
	}
}
