package probe

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

func runProbe(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

// Bad input is refused in words with exit 2, before anything is tried.
func TestBadInputIsRefusedWithExitTwo(t *testing.T) {
	many := []string{}
	for i := 1; i <= MaxTargets+1; i++ {
		many = append(many, "--connect", fmt.Sprintf("127.0.0.1:%d", i))
	}
	for name, tc := range map[string]struct {
		args  []string
		words string
	}{
		"an unknown flag":       {[]string{"--conect", "127.0.0.1:1"}, "flag provided but not defined: -conect"},
		"a malformed target":    {[]string{"--connect", "127.0.0.1"}, `--connect "127.0.0.1": it is not host:port`},
		"port 0":                {[]string{"--connect", "127.0.0.1:0"}, "the port 0 is out of range (1 to 65535)"},
		"port 65536":            {[]string{"--connect", "127.0.0.1:65536/udp"}, "the port 65536 is out of range"},
		"a protocol of no kind": {[]string{"--connect", "127.0.0.1:53/sctp"}, `"/sctp" is no protocol`},
		"too many targets":      {many, fmt.Sprintf("more than %d --connect targets", MaxTargets)},
		"a target twice":        {[]string{"--connect", "127.0.0.1:1", "--connect", "127.0.0.1:1"}, "--connect 127.0.0.1:1 is given twice"},
		"no value":              {[]string{"--connect"}, "flag needs an argument: -connect"},
		"diagnose and connect":  {[]string{"--diagnose", "--connect", "127.0.0.1:1"}, "--diagnose takes no --connect"},
		"an argument":           {[]string{"127.0.0.1:1"}, `unexpected argument "127.0.0.1:1"`},
		"diagnose given a word": {[]string{"--diagnose=maybe"}, "invalid boolean value"},
	} {
		code, out, errs := runProbe(tc.args...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.words) || !strings.Contains(errs, "usage: computerd probe") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2 and %q", name, code, out, errs, tc.words)
		}
	}
	if code, out, _ := runProbe("--help"); code != 0 || !strings.Contains(out, "--connect <host:port>[/udp]") {
		t.Errorf("--help: %d %q", code, out)
	}
}

// Any argument list is answered without a panic: a refusal (2) or a probe of loopback ports
// nothing listens on.
func FuzzProbeArgs(f *testing.F) {
	f.Add("--connect\x00127.0.0.1:9")
	f.Add("--connect=[::1]:9/udp")
	f.Add("--diagnose\x00--connect\x00x:1")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		for _, a := range args {
			if strings.Contains(a, "diagnose") {
				return // its checks are public addresses: never run here
			}
		}
		var targets []string
		for _, a := range args {
			if tg, err := ParseTarget(strings.TrimPrefix(strings.TrimPrefix(a, "--connect="), "-connect=")); err == nil {
				targets = append(targets, tg.Host)
			}
		}
		for _, h := range targets {
			if h != "127.0.0.1" && h != "::1" {
				return // only loopback targets are ever tried
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		code := run(ctx, args, io.Discard, io.Discard, nil)
		if code != 0 && code != 2 {
			t.Fatalf("%q: exit %d", args, code)
		}
	})
}

// One JSON line: ids, kernel, interfaces, and each target's result in the order given, with
// reached and accepted naming the targets that answered and that accepted alone.
func TestReportLine(t *testing.T) {
	answers, _ := tcpServer(t, func(c net.Conn) { c.Read(make([]byte, 100)); io.WriteString(c, "HTTP/1.1 200 OK\r\n\r\n") })
	silent, _ := tcpServer(t, func(c net.Conn) { c.Read(make([]byte, 100)) })
	closed := closedPort(t, false)
	dns := udpServer(t, dnsAnswer)
	code, out, errs := runProbe("--connect", answers.String(), "--connect", silent.String(), "--connect", closed.String(), "--connect", dns.String())
	if code != 0 || strings.Count(out, "\n") != 1 || errs != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	var r Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Kernel == "" || len(r.Interfaces) == 0 || r.Verdict != "" {
		t.Errorf("kernel %q, interfaces %v, verdict %q", r.Kernel, r.Interfaces, r.Verdict)
	}
	if strings.Join(r.Reached, " ") != answers.String()+" "+dns.String() || strings.Join(r.Accepted, " ") != silent.String() {
		t.Errorf("reached %v, accepted %v", r.Reached, r.Accepted)
	}
	want := []string{Answered, Accepted, Refused, Answered}
	for i, res := range r.Results {
		if res.Outcome != want[i] {
			t.Errorf("result %d: %+v, want %s", i, res, want[i])
		}
	}
	for _, key := range []string{`"uid":`, `"gid":`, `"kernel":`, `"interfaces":`, `"reached":`, `"accepted":`, `"results":`, `"protocol":"udp"`, `"bytes":`, `"detail":`} {
		if !strings.Contains(out, key) {
			t.Errorf("the line has no %s: %s", key, out)
		}
	}
	// No target: ids, kernel and interfaces alone, with empty lists rather than nulls.
	if code, out, _ := runProbe(); code != 0 || !strings.Contains(out, `"reached":[],"accepted":[],"results":[]`) {
		t.Errorf("no target: %d %s", code, out)
	}
}

// --diagnose's plan: each address on 443/tcp, 80/tcp and 53/udp, within its own bounds, with a
// verdict. Its real addresses are tried only where nothing can leave (the container tests);
// here the plan runs against loopback addresses nothing serves on those ports.
func TestDiagnose(t *testing.T) {
	plan := diagnosePlan(DiagnoseHosts)
	var got []string
	for _, tg := range plan {
		got = append(got, tg.String())
	}
	if strings.Join(got, " ") != "1.1.1.1:443 1.1.1.1:80 1.1.1.1:53/udp 8.8.8.8:443 8.8.8.8:80 8.8.8.8:53/udp 9.9.9.9:443 9.9.9.9:80 9.9.9.9:53/udp 151.101.1.57:443 151.101.1.57:80 151.101.1.57:53/udp" {
		t.Errorf("the plan: %v", got)
	}
	if DiagnoseBounds != (Bounds{Connect: 3 * time.Second, Answer: 3 * time.Second, Read: 4096}) || DiagnoseTotal != 15*time.Second {
		t.Errorf("bounds %+v, total %v", DiagnoseBounds, DiagnoseTotal)
	}
	for _, tc := range []struct {
		r    Report
		want string
	}{
		{Report{Reached: []string{"1.1.1.1:443"}, Accepted: []string{"8.8.8.8:80"}}, "egress"},
		{Report{Accepted: []string{"8.8.8.8:80"}}, "accepted-only"},
		{Report{}, "none"},
	} {
		if got := Verdict(tc.r); got != tc.want {
			t.Errorf("%+v: %s, want %s", tc.r, got, tc.want)
		}
	}
	var out bytes.Buffer
	start := time.Now()
	if code := run(context.Background(), []string{"--diagnose"}, &out, io.Discard, []string{"127.0.0.77"}); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var r Report
	json.Unmarshal(out.Bytes(), &r)
	if len(r.Results) != 3 || r.Verdict != Verdict(r) || time.Since(start) > DiagnoseTotal+time.Second {
		t.Errorf("a diagnosis of 127.0.0.77 after %v: %s", time.Since(start), out.String())
	}
}
