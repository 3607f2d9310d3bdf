package egress

import (
	"bufio"
	"io"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/egress/allow"
	"agentrun.dev/computerd/internal/egress/proxy"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	// As a ConfigMap's kubelet writes: a new file renamed over the old.
	if err := os.WriteFile(path+".new", []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
}

func TestParseListFile(t *testing.T) {
	l, err := parseListFile([]byte("  pypi.org \r\n\n*.pythonhosted.org\n10.213.0.0/24\npypi.org\n"), netip.MustParsePrefix("10.213.0.0/16"))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(l.Entries(), " "); got != "*.pythonhosted.org pypi.org 10.213.0.0/24" {
		t.Fatalf("%q", got)
	}
	// The argv's check, every refusal named together; an empty file is no list.
	_, err = parseListFile([]byte("10.0.0.0/8\npypi.org:443\nhttps://x.example/\n"), netip.Prefix{})
	for _, words := range []string{`"10.0.0.0/8" is over 10.0.0.0/8, a private range`, `"pypi.org:443" has a port`, "https://x.example/"} {
		if err == nil || !strings.Contains(err.Error(), words) {
			t.Errorf("missing %q in %v", words, err)
		}
	}
	if _, err := parseListFile([]byte("\n \n"), netip.Prefix{}); err == nil || !strings.Contains(err.Error(), "ask for none") {
		t.Errorf("an empty file: %v", err)
	}
}

func TestReadListFileBounds(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, []byte(strings.Repeat("a.example\n", MaxListFile/10+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readListFile(big, netip.Prefix{}); err == nil || !strings.Contains(err.Error(), "larger than 256 KiB") {
		t.Errorf("a file past the bound: %v", err)
	}
	if _, _, err := readListFile(filepath.Join(dir, "missing"), netip.Prefix{}); err == nil {
		t.Error("a missing file read")
	}
}

type holder struct {
	mu       sync.Mutex
	lists    []allow.List
	settings []proxy.Settings
}

func (h *holder) SetList(l allow.List) { h.mu.Lock(); h.lists = append(h.lists, l); h.mu.Unlock() }
func (h *holder) SetSettings(s proxy.Settings) {
	h.mu.Lock()
	h.settings = append(h.settings, s)
	h.mu.Unlock()
}
func (h *holder) held() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]string, len(h.lists))
	for i, l := range h.lists {
		out[i] = strings.Join(l.Entries(), " ")
	}
	return out
}

// Each read holds a new list, holds nothing while the file cannot be held (said once), takes the
// list back when the file holds one again, and follows a ConfigMap's swap of its ..data link.
func TestListReload(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "allow")
	write(t, path, "pypi.org\n")
	raw, _, err := readListFile(path, netip.Prefix{})
	if err != nil {
		t.Fatal(err)
	}
	h := &holder{}
	var log strings.Builder
	r := &listReload{path: path, last: raw, p: h, log: &log}
	steps := []struct {
		change func()
		held   []string
	}{
		{func() {}, nil}, // the same bytes: nothing held anew
		{func() { write(t, path, "pypi.org\n*.pythonhosted.org\n") }, []string{"*.pythonhosted.org pypi.org"}},
		{func() { write(t, path, "pypi.org\n10.0.0.0/8\n") }, []string{"*.pythonhosted.org pypi.org", ""}},
		{func() {}, []string{"*.pythonhosted.org pypi.org", ""}}, // the same failure: said once
		{func() { os.Remove(path) }, []string{"*.pythonhosted.org pypi.org", "", ""}},
		{func() { write(t, path, "pypi.org\n") }, []string{"*.pythonhosted.org pypi.org", "", "", "pypi.org"}},
	}
	for i, s := range steps {
		s.change()
		r.once()
		if got := h.held(); strings.Join(got, "|") != strings.Join(s.held, "|") {
			t.Fatalf("step %d: held %q, want %q\n%s", i, got, s.held, log.String())
		}
	}
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 4 ||
		!strings.HasPrefix(lines[0], "computerd egress: the list at "+path+" holds 2 entries (fnv64a ") ||
		!strings.Contains(lines[1], `cannot be held ("10.0.0.0/8" is over 10.0.0.0/8, a private range`) ||
		!strings.Contains(lines[1], "so the proxy forwards nothing until it can") ||
		!strings.Contains(lines[2], "cannot be held (open "+path) ||
		lines[3] != heldLine(path, h.lists[3])[:len(lines[3])] {
		t.Fatalf("log:\n%s", log.String())
	}

	// A ConfigMap mount: allow -> ..data/allow, ..data -> ..<timestamp>, swapped by a rename.
	cm := filepath.Join(dir, "cm")
	os.MkdirAll(filepath.Join(cm, "..v1"), 0o755)
	os.WriteFile(filepath.Join(cm, "..v1", "allow"), []byte("pypi.org\n"), 0o644)
	os.Symlink("..v1", filepath.Join(cm, "..data"))
	os.Symlink("..data/allow", filepath.Join(cm, "allow"))
	h2 := &holder{}
	r2 := &listReload{path: filepath.Join(cm, "allow"), p: h2, log: io.Discard}
	r2.once()
	os.MkdirAll(filepath.Join(cm, "..v2"), 0o755)
	os.WriteFile(filepath.Join(cm, "..v2", "allow"), []byte("files.pythonhosted.org\n"), 0o644)
	os.Symlink("..v2", filepath.Join(cm, "..data_tmp"))
	if err := os.Rename(filepath.Join(cm, "..data_tmp"), filepath.Join(cm, "..data")); err != nil {
		t.Fatal(err)
	}
	r2.once()
	if got := h2.held(); strings.Join(got, "|") != "pypi.org|files.pythonhosted.org" {
		t.Fatalf("through the ..data swap: %q", got)
	}
}

func TestListDigest(t *testing.T) {
	a, _ := parseListFile([]byte("pypi.org\n*.pythonhosted.org\n"), netip.Prefix{})
	b, _ := parseListFile([]byte("*.pythonhosted.org\n\npypi.org\npypi.org\n"), netip.Prefix{})
	c, _ := parseListFile([]byte("pypi.org\n"), netip.Prefix{})
	// FNV-1a 64 of "*.pythonhosted.org\npypi.org", as any reader computes it.
	if listDigest(a) != "ac80d4410aa2cf22" || listDigest(a) != listDigest(b) || listDigest(a) == listDigest(c) {
		t.Fatalf("%s %s %s", listDigest(a), listDigest(b), listDigest(c))
	}
}

// Through Main: a request off the list is refused; the file gains the host and the proxy, still
// running, no longer refuses it as off-list; a hand edit the check refuses leaves it forwarding nothing.
func TestMainReloadsItsListFile(t *testing.T) {
	dir := t.TempDir()
	socket := filepath.Join(dir, "egress.sock")
	list := filepath.Join(dir, "allow")
	write(t, list, "pypi.org\n")
	var out, errs lockedBuffer
	done := make(chan int)
	go func() {
		done <- Main([]string{"--socket", socket, "--deadline", iso(time.Now().Add(20 * time.Second)), "--allow-file", list, "--hint", "ask"}, &out, &errs)
	}()
	waitFor := func(words string) {
		t.Helper()
		for start := time.Now(); !strings.Contains(out.String(), words); time.Sleep(20 * time.Millisecond) {
			if time.Since(start) > 10*time.Second {
				t.Fatalf("no %q in %q (%q)", words, out.String(), errs.String())
			}
		}
	}
	connect := func(host string) string {
		c, err := net.Dial("unix", socket)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "CONNECT "+host+":443 HTTP/1.1\r\n\r\n")
		line, _ := bufio.NewReader(c).ReadString('\n')
		return line
	}
	waitFor("holds 1 entries")
	if line := connect("evil.example"); line != "HTTP/1.1 403 Forbidden\r\n" {
		t.Fatalf("%q", line)
	}
	waitFor(`{"host":"evil.example","port":443,"address":"","class":"off-list"}`)

	write(t, list, "pypi.org\nevil.example\n")
	waitFor("holds 2 entries")
	connect("evil.example")
	for start := time.Now(); strings.Count(out.String(), `"host":"evil.example"`) < 2; time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("no second log line: %q", out.String())
		}
	}
	if strings.Count(out.String(), `"class":"off-list"`) != 1 {
		t.Fatalf("evil.example is still off the list after the reload: %q", out.String())
	}

	write(t, list, "pypi.org\n169.254.169.254/32\n")
	waitFor("so the proxy forwards nothing until it can")
	connect("pypi.org")
	for start := time.Now(); !strings.Contains(out.String(), `{"host":"pypi.org","port":443,"address":"","class":"off-list"}`); time.Sleep(20 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("pypi.org was not refused while the file is refused: %q", out.String())
		}
	}
	syscallTerm(t, done)
}

func TestParseArgsListFile(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "allow")
	write(t, list, "pypi.org\n")
	base := []string{"--socket", "/e.sock", "--deadline", "2030-01-02T03:04:05Z"}
	o, err := ParseArgs(append(base, "--allow-file", list), "")
	if err != nil || o.ListFile != list || strings.Join(o.List.Entries(), " ") != "pypi.org" || string(o.listRaw) != "pypi.org\n" {
		t.Fatalf("%+v %v", o, err)
	}
	// Rules and credentials beside a file are checked against its list as read at the start (a Kubernetes sidecar's, from its proxy's ConfigMap).
	ruled, err := ParseArgs(append(append([]string{}, base...), "--allow-file", list, "--rule", "pypi.org GET /simple"), `[{"host":"pypi.org","header":"X-Key","value":"k"}]`)
	if err != nil || len(ruled.Rules) != 1 || ruled.Rules[0].Host != "pypi.org" || len(ruled.Credentials) != 1 {
		t.Fatalf("rules beside a file: %+v %v", ruled, err)
	}
	for name, tc := range map[string]struct {
		args  []string
		words string
	}{
		"a rule off the file's list": {append(append([]string{}, base...), "--allow-file", list, "--rule", "other.example GET /"), `host "other.example" is not a name`},
		"both":                       {append(append([]string{}, base...), "--allow-file", list, "--allow", "pypi.org"), "not both"},
		"relative":                   {append(append([]string{}, base...), "--allow-file", "allow"), "is not an absolute path"},
		"missing":                    {append(append([]string{}, base...), "--allow-file", filepath.Join(dir, "none")), "--allow-file: open"},
		"a refusal":                  {append(append([]string{}, base...), "--allow-file", writeTo(t, dir, "bad", "10.0.0.0/8\n")), "--allow-file: \"10.0.0.0/8\" is over"},
		"empty file":                 {append(append([]string{}, base...), "--allow-file", writeTo(t, dir, "empty", "\n")), "ask for none"},
	} {
		if _, err := ParseArgs(tc.args, ""); err == nil || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func writeTo(t *testing.T, dir, name, text string) string {
	p := filepath.Join(dir, name)
	write(t, p, text)
	return p
}

// FuzzParseListFile: any bytes are either refused in words or a list the argv's check takes
// back unchanged, within its bounds.
func FuzzParseListFile(f *testing.F) {
	for _, s := range []string{"pypi.org\n", "*.pythonhosted.org\r\n10.213.0.0/24", "10.0.0.0/8", "\n", "a\x00b", "::/0\n2001:db8::/32", "1.2.3.4/32\n*.a.b\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		l, err := parseListFile(raw, netip.Prefix{})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("a refusal with no words")
			}
			return
		}
		if len(l.Names)+len(l.Suffixes) > allow.MaxEach || len(l.CIDRs) > allow.MaxEach {
			t.Fatalf("past the bounds: %d names, %d CIDRs", len(l.Names)+len(l.Suffixes), len(l.CIDRs))
		}
		again, refusals := allow.Parse(l.Entries(), netip.Prefix{})
		if len(refusals) > 0 || strings.Join(again.Entries(), "\n") != strings.Join(l.Entries(), "\n") {
			t.Fatalf("%q held %q, which the check reads as %q %v", raw, l.Entries(), again.Entries(), refusals)
		}
	})
}

// syscallTerm ends a Main under test as the kubelet does, with SIGTERM (Main catches it), and waits for exit 0.
func syscallTerm(t *testing.T, done <-chan int) {
	t.Helper()
	syscall.Kill(os.Getpid(), syscall.SIGTERM)
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the proxy did not end on SIGTERM")
	}
}
