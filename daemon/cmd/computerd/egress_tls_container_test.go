package main

import (
	"crypto/sha256"
	"encoding/pem"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// HTTPS to a host with rules and a credential, through a real proxy container given --ca-file
// (the test's upstream has TLS of its own, from a CA the proxy is told of by its test-only flag):
// from inside the computer, a client verifying TLS against the system's roots (as init points
// SSL_CERT_FILE) reaches what the rule allows with the proxy's key and is refused the rest in
// the words, nothing of it reaching the upstream; the key is nowhere the computer can
// read, nor in any of its processes' memory (scanned through /proc/<pid>/mem as its user, and from
// the host as root); its trust holds the proxy's CA (the one the proxy logged) and no other beside the image's
// own roots, and a proxy made again is trusted with no restart; a host with no rules is still
// tunnelled, its own certificate reaching the client.
// reverse is s backwards: a needle memscan takes, so the needle is in no memory but the scanner's.
func reverse(s string) string {
	b := []byte(s)
	for a, z := 0, len(b)-1; a < z; a, z = a+1, z-1 {
		b[a], b[z] = b[z], b[a]
	}
	return string(b)
}

func TestEgressInterceptedHTTPSFromInsideAComputer(t *testing.T) {
	st := newRulesStand(t, "tls", func(st *rulesStand) []string {
		if st.upstreamCA == "" {
			t.Fatal("the upstream printed no CA")
		}
		return []string{"--ca-file", "/opt/agentrun/egress/ca.pem", "--upstream-root-for-tests", st.upstreamCA}
	})
	accepted := func() int { return strings.Count(waitLog(t, st.up, "serving", time.Second), "accepted") }

	t.Run("a request the rule allows arrives over verified TLS with the proxy's key", func(t *testing.T) {
		if got := st.kitRun("sget", "GET", "https://up.egress.test/v1/items/7"); got != "200 hello from upstream /v1/items/7 key=1" {
			t.Fatalf("%q", got)
		}
		if got := st.kitRun("sget", "HEAD", "https://up.egress.test/v1/items", "Bearer the-agents-own"); got != "200 " {
			t.Fatalf("HEAD with the computer's own Authorization: %q", got)
		}
	})
	before := accepted()
	t.Run("a request outside the rule is refused inside the TLS, in words", func(t *testing.T) {
		for _, tc := range []struct{ method, path string }{{"POST", "/v1/items"}, {"DELETE", "/v1/items/7"}, {"GET", "/v2/admin"}} {
			want := fmt.Sprintf("403 403 %s %s is not allowed for up.egress.test on this box's network list: ask the test\n", tc.method, tc.path)
			if got := st.kitRun("sget", tc.method, "https://up.egress.test"+tc.path); got != want {
				t.Errorf("%s %s: %q, want %q", tc.method, tc.path, got, want)
			}
		}
	})
	if n := accepted() - before; n != 0 {
		t.Fatalf("the upstream accepted %d connections for refused requests", n)
	}
	t.Run("the computer's trust holds the proxy's CA and no other beside its image's roots", func(t *testing.T) {
		env := sh(t, st.cl, `echo "$SSL_CERT_FILE|$REQUESTS_CA_BUNDLE|$NODE_EXTRA_CA_CERTS"`)
		if env != "/run/agentrun/egress-trust.pem|/run/agentrun/egress-trust.pem|/run/agentrun/egress-trust.pem\n" {
			t.Fatalf("the trust variables: %q", env)
		}
		bundle := sh(t, st.cl, "cat /run/agentrun/egress-trust.pem")
		system := sh(t, st.cl, "cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null || true")
		ca := sh(t, st.cl, "cat /opt/agentrun/egress/ca.pem")
		if want := map[bool]string{true: system + "\n", false: ""}[system != ""] + ca; bundle != want {
			t.Fatalf("the bundle is not the image's roots and the proxy's CA alone (%d bytes, want %d)", len(bundle), len(want))
		}
		block, _ := pem.Decode([]byte(ca))
		if block == nil {
			t.Fatalf("the CA file: %q", ca)
		}
		if logged := fmt.Sprintf("its CA (sha256 %x)", sha256.Sum256(block.Bytes)); !strings.Contains(waitLog(t, st.px, "ready", time.Second), logged) {
			t.Fatalf("the computer trusts another CA than the proxy's (%s)", logged)
		}
	})
	t.Run("the key is nowhere the computer can read, nor in the proxy's log", func(t *testing.T) {
		seen := sh(t, st.cl, "env; cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' '\\n'; grep -rl 'key-o''ne-' / --exclude-dir=proc --exclude-dir=sys 2>/dev/null; true")
		if strings.Contains(seen, "key-one-") || strings.Contains(seen, "AGENTRUN_EGRESS_CREDENTIALS") {
			t.Fatalf("the computer holds the key: %s", seen)
		}
		if logs := waitLog(t, st.px, "ready", time.Second); strings.Contains(logs, "key-one-") || !strings.Contains(logs, `"class":"rule"`) {
			t.Fatalf("the proxy's log holds the key, or no rule line: %s", logs)
		}
	})
	t.Run("the key is in no process's memory: none a program inside can read, nor any other", func(t *testing.T) {
		// A program that made a keyed request and lives on, holding its answer, so a running
		// client's memory is among those read.
		var started struct{ ID string }
		st.cl.Must(t, "process.start", map[string]any{"argv": []string{"sh", "-c", "a=$(/opt/egresskit sget GET https://up.egress.test/v1/items/9); sleep 60"}}, &started)
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(sh(t, st.cl, "cat /proc/[0-9]*/comm"), "sleep\n"); time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the keyed client never reached its sleep")
			}
		}
		// Reversed: the needles are in no memory but the scanner's own. The second, the trust
		// bundle's path, is in every program's environment and in init's memory: found, it shows
		// the scan read them.
		needles := []string{reverse("key-one-"), reverse("/run/agentrun/egress-trust.pem")}
		type scanned struct {
			key, path       []string
			procs, bytes    int
			unreadable, raw string
		}
		parse := func(out string) scanned {
			lines := strings.Split(strings.TrimSpace(out), "\n")
			var sc scanned
			if len(lines) != 3 {
				t.Fatalf("memscan: %q", out)
			}
			sc.key = strings.Fields(strings.TrimPrefix(lines[0], "needle "+needles[0]+":"))
			sc.path = strings.Fields(strings.TrimPrefix(lines[1], "needle "+needles[1]+":"))
			if _, err := fmt.Sscanf(lines[2], "read %d processes, %d bytes;", &sc.procs, &sc.bytes); err != nil {
				t.Fatalf("memscan: %q", out)
			}
			_, unreadable, _ := strings.Cut(lines[2], "unreadable:")
			sc.unreadable = strings.TrimSpace(unreadable)
			sc.raw = out
			return sc
		}
		// As the computer's user: every program's memory is read, and init's (not dumpable) is refused.
		inside := parse(st.kitRun(append([]string{"memscan"}, needles...)...))
		if len(inside.key) > 0 || inside.procs < 2 || len(inside.path) != inside.procs || !strings.HasPrefix(inside.unreadable, "1 (open /proc/1/maps: permission denied)") {
			t.Fatalf("as the computer's user: the key in %v, or the scan proves too little: %q", inside.key, inside.raw)
		}
		// From the host, as root: every process of the computer read, init's too.
		pids := strings.Join(strings.Fields(docker(t, "top", st.computer, "-o", "pid"))[1:], ",") // after the PID header
		out, err := exec.Command(st.kit, append([]string{"memscan", "--pids", pids}, needles...)...).Output()
		if err != nil {
			t.Fatalf("memscan from the host: %v", err)
		}
		all := parse(string(out))
		if len(all.key) > 0 || all.unreadable != "" || all.procs < 3 || len(all.path) < 3 || all.bytes < 1<<20 {
			t.Fatalf("from the host: the key in %v, or the scan proves too little: %q", all.key, all.raw)
		}
		t.Logf("inside: %s; from the host: %s", inside.raw, all.raw)
	})
	t.Run("a proxy made again (a rotated key, a CA of its own) is trusted at the running computer's next request", func(t *testing.T) {
		docker(t, "rm", "-f", st.px)
		st.startProxy(st.keyTwo)
		if got := st.kitRun("sget", "GET", "https://up.egress.test/v1/items"); got != "200 hello from upstream /v1/items key=2" {
			t.Fatalf("%q", got)
		}
		ca := sh(t, st.cl, "cat /opt/agentrun/egress/ca.pem")
		if bundle := sh(t, st.cl, "cat /run/agentrun/egress-trust.pem"); !strings.HasSuffix(bundle, ca) || strings.Count(bundle, "BEGIN CERTIFICATE") != strings.Count(sh(t, st.cl, "cat /etc/ssl/certs/ca-certificates.crt 2>/dev/null || true"), "BEGIN CERTIFICATE")+1 {
			t.Fatalf("the bundle does not hold the new CA alone beside the image's roots")
		}
	})
	t.Run("a host with no rules is tunnelled, its own certificate reaching the client", func(t *testing.T) {
		// The upstream's own certificate names up.egress.test alone: a leaf the proxy minted would
		// name the address, and verify.
		if got := st.kitRun("sget", "GET", "https://"+st.upIP+"/"); !strings.Contains(got, "certificate is valid for up.egress.test, not "+st.upIP) && !strings.Contains(got, "doesn't contain any IP SANs") {
			t.Fatalf("not the upstream's own certificate: %q", got)
		}
		if got := st.kitRun("get", "https://"+st.upIP+"/v1/items"); got != "200 hello from upstream /v1/items" {
			t.Fatalf("%q", got)
		}
	})
}
