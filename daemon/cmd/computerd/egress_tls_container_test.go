package main

import (
	"crypto/sha256"
	"encoding/pem"
	"fmt"
	"strings"
	"testing"
	"time"
)

// HTTPS to a host with rules and a credential, through a real proxy container given --ca-file
// (the test's upstream has TLS of its own, from a CA the proxy is told of by its test-only flag):
// from inside the computer, a client verifying TLS against the system's roots (as init points
// SSL_CERT_FILE) reaches what the rule allows with the proxy's key and is refused the rest in
// the words, nothing of it reaching the upstream; the key is nowhere the computer can
// read; its trust holds the proxy's CA (the one the proxy logged) and no other beside the image's
// own roots, and a proxy made again is trusted with no restart; a host with no rules is still
// tunnelled, its own certificate reaching the client.
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
