package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/rpctest"
)

// Rules and a credential through a real proxy container, as the SSRF harness runs one (cut
// from every network but the test's own upstream): a plain HTTP request its rule allows
// arrives with the key set by the proxy; one outside it, and any tunnel to that host, is
// refused in the words with nothing reaching the upstream; the key is nowhere a
// program inside the computer can read nor in the proxy's log; and a proxy made again on the
// same volume with a rotated key serves the running computer's next request with it.
func TestEgressRulesAndCredentialsFromInsideAComputer(t *testing.T) {
	st := newRulesStand(t, "rules")
	up, px, upIP, keyTwo, kitRun, cl := st.up, st.px, st.upIP, st.keyTwo, st.kitRun, st.cl
	startProxy := st.startProxy
	accepted := func() int { return strings.Count(waitLog(t, up, "serving", time.Second), "accepted") }

	t.Run("a request the rule allows arrives with the proxy's key, replacing the computer's own", func(t *testing.T) {
		if got := kitRun("get", "http://up.egress.test/v1/items/7"); got != "200 hello from upstream /v1/items/7 key=1" {
			t.Fatalf("%q", got)
		}
		if got := kitRun("req", "GET", "http://up.egress.test/v1/items", "Bearer the-agents-own"); got != "200 hello from upstream /v1/items key=1" {
			t.Fatalf("a computer's own Authorization: %q", got)
		}
		if got := kitRun("get", "http://"+upIP+"/v1/items"); got != "200 hello from upstream /v1/items" {
			t.Fatalf("another listed host got the key, or was judged: %q", got)
		}
	})
	before := accepted()
	t.Run("a request outside the rule, and a tunnel to its host, is refused in words", func(t *testing.T) {
		for _, tc := range []struct{ method, path string }{{"POST", "/v1/items"}, {"DELETE", "/v1/items/7"}, {"GET", "/v2/admin"}, {"GET", "/v1/items/../../v2/admin"}} {
			want := fmt.Sprintf("403 403 %s %s is not allowed for up.egress.test on this box's network list: ask the test\n", tc.method, tc.path)
			if got := kitRun("socket", "127.0.0.1:3128", tc.method+" http://up.egress.test"+tc.path+" HTTP/1.1\\r\\nContent-Length: 0\\r\\n\\r\\n"); !strings.HasSuffix(got, want[4:]) || !strings.HasPrefix(got, "HTTP/1.1 403") {
				t.Errorf("%s %s: %q, want %q", tc.method, tc.path, got, want)
			}
		}
		if got := kitRun("req", "POST", "http://up.egress.test/v1/items"); got != "403 403 POST /v1/items is not allowed for up.egress.test on this box's network list: ask the test\n" {
			t.Errorf("POST through the proxy variables: %q", got)
		}
		if got := kitRun("socket", "127.0.0.1:3128", "CONNECT up.egress.test:443 HTTP/1.1\\r\\n\\r\\n"); !strings.HasSuffix(got, "403 CONNECT up.egress.test:443 is not allowed for up.egress.test on this box's network list: ask the test\n") {
			t.Errorf("CONNECT: %q", got)
		}
		if got := kitRun("socks", "127.0.0.1:3128", "up.egress.test", "80"); got != "reply 2" {
			t.Errorf("SOCKS5: %q", got)
		}
	})
	if n := accepted() - before; n != 0 {
		t.Fatalf("the upstream accepted %d connections for refused requests", n)
	}
	t.Run("the key is nowhere the computer can read, nor in the proxy's log", func(t *testing.T) {
		seen := sh(t, cl, "env; cat /proc/[0-9]*/environ /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' '\\n'; grep -rl 'key-o''ne-' / --exclude-dir=proc --exclude-dir=sys 2>/dev/null; true")
		if strings.Contains(seen, "key-one-") || strings.Contains(seen, "AGENTRUN_EGRESS_CREDENTIALS") {
			t.Fatalf("the computer holds the key: %s", seen)
		}
		if logs := waitLog(t, px, "ready", time.Second); strings.Contains(logs, "key-one-") || !strings.Contains(logs, `"class":"rule"`) {
			t.Fatalf("the proxy's log holds the key, or no rule line: %s", logs)
		}
		if args := docker(t, "inspect", "-f", "{{json .Args}}", px); strings.Contains(args, "key-one-") {
			t.Fatalf("the proxy's argv holds the key: %s", args)
		}
	})
	t.Run("a rotated key takes effect at the running computer's next request", func(t *testing.T) {
		docker(t, "rm", "-f", px)
		startProxy(keyTwo)
		if got := kitRun("get", "http://up.egress.test/v1/items"); got != "200 hello from upstream /v1/items key=2" {
			t.Fatalf("%q", got)
		}
	})
}

// rulesStand is the SSRF harness's way for rules and credentials: the test's own internal
// network, egresskit's upstream on it as up.egress.test (knowing two keys), a proxy container as
// the provider hardens one, holding a rule for up.egress.test and a credential for it, and a
// computer at --network none whose init relays to the proxy's socket.
type rulesStand struct {
	up, px, vol, upIP, subnet string
	keyOne, keyTwo            string
	// upstreamCA is the upstream's own CA (PEM), which its TLS certificate for up.egress.test is signed by.
	upstreamCA string
	startProxy func(key string)
	// computer is the computer's container name; kit, egresskit on this machine.
	computer, kit string
	cl            *rpctest.Client
	kitRun        func(args ...string) string
}

// newRulesStand makes the stand; extra are flags the proxy is given beside the rule.
func newRulesStand(t *testing.T, name string, extra ...func(st *rulesStand) []string) *rulesStand {
	img := baseImage(t)
	proxyBin := egressProxy(t)
	kit := egresskit(t)
	id := fmt.Sprintf("%d-%06d", os.Getpid(), rand.IntN(1e6))
	net := "computerd-" + name + "-net-" + id
	st := &rulesStand{up: "computerd-" + name + "-up-" + id, px: "computerd-" + name + "-px-" + id, vol: "computerd-" + name + "-vol-" + id}
	t.Cleanup(func() {
		exec.Command("docker", "rm", "-f", st.up, st.px).Run()
		exec.Command("docker", "volume", "rm", "-f", st.vol).Run()
		exec.Command("docker", "network", "rm", net).Run()
	})
	st.keyOne, st.keyTwo = "Bearer key-one-"+id, "Bearer key-two-"+id
	docker(t, "network", "create", "--internal", net)
	st.subnet = docker(t, "network", "inspect", "-f", "{{range .IPAM.Config}}{{.Subnet}}{{end}}", net)
	docker(t, "run", "-d", "--name", st.up, "--network", net, "--network-alias", "up.egress.test", "-e", "EGRESSKIT_KEYS="+st.keyOne+","+st.keyTwo,
		"-v", kit+":/opt/egresskit:ro", img, "/opt/egresskit", "serve")
	logs := waitLog(t, st.up, "serving", 10*time.Second)
	if i, j := strings.Index(logs, "-----BEGIN CERTIFICATE-----"), strings.Index(logs, "-----END CERTIFICATE-----"); i >= 0 && j > i {
		st.upstreamCA = logs[i:j+len("-----END CERTIFICATE-----")] + "\n"
	}
	st.upIP = docker(t, "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", st.up)
	docker(t, "volume", "create", "--driver", "local", "--opt", "type=tmpfs", "--opt", "device=tmpfs", "--opt", "o=size=1m,uid=1000,gid=1000,mode=0700", st.vol)

	// The key reaches the proxy by an env file, as the provider's Engine API call sets it: never an argv.
	st.startProxy = func(key string) {
		envFile := filepath.Join(t.TempDir(), "env")
		os.WriteFile(envFile, []byte(`AGENTRUN_EGRESS_CREDENTIALS=[{"host":"up.egress.test","header":"Authorization","value":"`+key+`"}]`+"\n"), 0o600)
		args := []string{"run", "-d", "--name", st.px, "--network", net, "--user", "1000:1000", "--read-only", "--cap-drop", "ALL",
			"--security-opt", "no-new-privileges", "--memory", "256m", "--pids-limit", "64", "--env-file", envFile,
			"-v", st.vol + ":/opt/agentrun/egress", "-v", proxyBin + ":/opt/agentrun/computerd-egress:ro", img,
			"/opt/agentrun/computerd-egress", "egress", "--socket", "/opt/agentrun/egress/egress.sock", "--deadline", iso(2 * time.Minute),
			"--allow", "up.egress.test", "--allow", st.upIP + "/32", "--rule", "up.egress.test GET,HEAD /v1/items",
			"--reachable-for-tests", st.subnet, "--hint", "ask the test"}
		for _, e := range extra {
			args = append(args, e(st)...)
		}
		docker(t, args...)
		waitLog(t, st.px, "(2 entries, 1 rules, 1 credentials)", 10*time.Second)
	}
	st.startProxy(st.keyOne)

	c := run(t, []string{"--user", "1000:1000", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--network", "none",
		"--tmpfs", "/work:mode=0700,uid=1000,gid=1000", "--tmpfs", "/run/agentrun:mode=0700,uid=1000,gid=1000", "-e", "HOME=/work",
		"-v", st.vol + ":/opt/agentrun/egress:ro", "-v", kit + ":/opt/egresskit:ro"},
		"init", "--deadline", iso(2*time.Minute), "--egress", "/opt/agentrun/egress/egress.sock")
	st.computer, st.kit, st.cl = c.name, kit, c.connect(t)
	st.kitRun = func(args ...string) string {
		var r struct{ Stdout []byte }
		st.cl.Must(t, "exec.run", map[string]any{"argv": append([]string{"/opt/egresskit"}, args...), "timeoutMs": 30000}, &r)
		return string(r.Stdout)
	}
	return st
}
