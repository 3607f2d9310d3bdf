package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"agentrun.dev/computerd/internal/nocgo"
)

// Recorded probe lines the library's unit tests read (test/vectors/probe-lines.json), each
// from a real run of a scenario here. Every run holds the file to the code: each line decodes
// into Report and encodes back byte for byte, and each scenario run again reads the same
// outcomes and details. UPDATE_VECTORS=1 go test ./internal/probe records them again.
const probeVectorPath = "../../../test/vectors/probe-lines.json"

type vector struct {
	Name string   `json:"name"`
	Args []string `json:"args"`
	Line string   `json:"line"` // as printed, without its newline
}

type vectorFile struct {
	Comment string   `json:"comment"`
	Lines   []vector `json:"lines"`
}

// scenario is one recorded run: its targets (made per run on the loopback), and whether it
// runs in a namespace of its own.
type scenario struct {
	name string
	own  bool
	args func(t *testing.T) []string
}

var defaultTargets = []string{"--connect", "1.1.1.1:443", "--connect", "8.8.8.8:443", "--connect", "[2606:4700:4700::1111]:443",
	"--connect", "1.1.1.1:53/udp", "--connect", "[2606:4700:4700::1111]:53/udp"}

func fixed(args ...string) func(*testing.T) []string {
	return func(*testing.T) []string { return args }
}

var scenarios = []scenario{
	{name: "own network: the default targets, none answers", own: true, args: fixed(defaultTargets...)},
	{name: "own network: the vendor agent's ports on both loopbacks", own: true, args: fixed("--connect", "127.0.0.1:2280", "--connect", "[::1]:2280", "--connect", "127.0.0.1:49983", "--connect", "[::1]:49983")},
	{name: "own network: --diagnose", own: true, args: fixed("--diagnose")},
	{name: "loopback: an HTTP answer and a DNS answer", args: func(t *testing.T) []string {
		http, _ := tcpServer(t, func(c net.Conn) { c.Read(make([]byte, 100)); io.WriteString(c, "HTTP/1.1 403 Forbidden\r\n\r\n") })
		return []string{"--connect", http.String(), "--connect", udpServer(t, dnsAnswer).String(), "--connect", closedPort(t, false).String()}
	}},
	{name: "loopback: accepted and closed with nothing back", args: func(t *testing.T) []string {
		silent, _ := tcpServer(t, func(c net.Conn) { c.Read(make([]byte, 100)) })
		return []string{"--connect", silent.String(), "--connect", closedPort(t, true).String()}
	}},
}

// record runs a scenario and returns its args and line; the line is "" when it cannot run here.
func record(t *testing.T, s scenario) ([]string, string) {
	t.Helper()
	args := s.args(t)
	if !s.own {
		var out bytes.Buffer
		if code := Main(args, &out, io.Discard); code != 0 {
			t.Fatalf("%s: exit %d", s.name, code)
		}
		return args, strings.TrimSpace(out.String())
	}
	if nocgo.Linked() || os.Getuid() != 0 {
		return args, ""
	}
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(stderr.String(), "CAP_") {
			return args, "" // no namespace of its own here
		}
		t.Fatalf("%s: %v: %s", s.name, err, stderr.String())
	}
	return args, strings.TrimSpace(string(out))
}

// shape is what a rerun must read the same: each result's protocol, outcome and detail, and,
// in a namespace of its own, the interfaces and verdict.
func shape(t *testing.T, line []byte, own bool) string {
	t.Helper()
	var r Report
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, res := range r.Results {
		fmt.Fprintf(&b, "%s %s %q; ", res.Protocol, res.Outcome, res.Detail)
	}
	if own {
		fmt.Fprintf(&b, "interfaces %v, verdict %q", r.Interfaces, r.Verdict)
	}
	return b.String()
}

func TestProbeLineVectors(t *testing.T) {
	if os.Getenv("UPDATE_VECTORS") == "1" {
		f := vectorFile{Comment: "Lines computerd probe printed, one per scenario of daemon/internal/probe/vectors_test.go (UPDATE_VECTORS=1 go test ./internal/probe records them); src/contract/probe.ts's tests read them."}
		for _, s := range scenarios {
			args, line := record(t, s)
			if line == "" {
				t.Fatalf("%s cannot run here: record the vectors as root with CAP_SYS_ADMIN and CAP_NET_ADMIN", s.name)
			}
			f.Lines = append(f.Lines, vector{Name: s.name, Args: args, Line: line})
		}
		out, _ := json.MarshalIndent(f, "", "  ")
		if err := os.WriteFile(probeVectorPath, append(out, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(probeVectorPath)
	if err != nil {
		t.Fatalf("%v: record the vectors with UPDATE_VECTORS=1", err)
	}
	var f vectorFile
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Lines) != len(scenarios) {
		t.Fatalf("%d recorded lines for %d scenarios: record them again (UPDATE_VECTORS=1)", len(f.Lines), len(scenarios))
	}
	for i, s := range scenarios {
		v := f.Lines[i]
		if v.Name != s.name {
			t.Fatalf("line %d is %q, the scenario %q: record them again", i, v.Name, s.name)
		}
		var r Report
		dec := json.NewDecoder(strings.NewReader(v.Line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			t.Errorf("%s: the recorded line no longer decodes: %v", s.name, err)
			continue
		}
		if again, _ := json.Marshal(r); string(again) != v.Line {
			t.Errorf("%s: the recorded line encodes back as\n%s\nnot\n%s", s.name, again, v.Line)
		}
		_, line := record(t, s)
		if line == "" {
			t.Logf("%s: not run here (it needs a namespace of its own); its recorded line is held to the Report type alone", s.name)
			continue
		}
		if got, want := shape(t, []byte(line), s.own), shape(t, []byte(v.Line), s.own); got != want {
			t.Errorf("%s reads\n%s\nit was recorded as\n%s", s.name, got, want)
		}
	}
}
