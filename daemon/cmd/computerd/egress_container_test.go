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
)

// egresskit builds the test's own server and clients (testdata/egresskit), static.
func egresskit(t *testing.T) string {
	return staticBuild(t, "egresskit", "./testdata/egresskit")
}

// egressProxy builds the proxy's own binary (cmd/computerd-egress), static, as its image holds it.
func egressProxy(t *testing.T) string {
	return staticBuild(t, "computerd-egress", "../computerd-egress")
}

func staticBuild(t *testing.T, name, pkg string) string {
	t.Helper()
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, name)
	cmd := exec.Command("go", "build", "-o", bin, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building %s: %v: %s", name, err, out)
	}
	return bin
}

func docker(t *testing.T, args ...string) string {
	t.Helper()
	out, err := exec.Command("docker", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("docker %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// waitLog waits for a container's log to hold a line.
func waitLog(t *testing.T, name, want string, d time.Duration) string {
	t.Helper()
	var out []byte
	for start := time.Now(); time.Since(start) < d; time.Sleep(50 * time.Millisecond) {
		out, _ = exec.Command("docker", "logs", name).CombinedOutput()
		if strings.Contains(string(out), want) {
			return string(out)
		}
	}
	t.Fatalf("%s never logged %q: %s", name, want, out)
	return ""
}

// A computer with no network reaches its list, and nothing else, through a proxy in a
// container of its own: an upstream on a Docker network the test made (marked reachable by
// the test-only seam), a computer at --network none with init --egress, and the proxy as
// hardened as the provider runs it. Every refused request leaves the upstream untouched.
func TestEgressFromInsideAComputer(t *testing.T) {
	img := baseImage(t)
	proxyBin := egressProxy(t)
	kit := egresskit(t)
	id := fmt.Sprintf("%d-%06d", os.Getpid(), rand.IntN(1e6))
	net, vol, up, px := "computerd-egress-net-"+id, "computerd-egress-vol-"+id, "computerd-egress-up-"+id, "computerd-egress-px-"+id
	t.Cleanup(func() {
		exec.Command("docker", "rm", "-f", up, px).Run()
		exec.Command("docker", "volume", "rm", "-f", vol).Run()
		exec.Command("docker", "network", "rm", net).Run()
	})
	docker(t, "network", "create", "--internal", net)
	subnet := docker(t, "network", "inspect", "-f", "{{range .IPAM.Config}}{{.Subnet}}{{end}}", net)
	docker(t, "run", "-d", "--name", up, "--network", net, "--network-alias", "up.egress.test", "-v", kit+":/opt/egresskit:ro", img, "/opt/egresskit", "serve")
	waitLog(t, up, "serving", 10*time.Second)
	upIP := docker(t, "inspect", "-f", "{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}", up)
	gateway := docker(t, "network", "inspect", "-f", "{{range .IPAM.Config}}{{.Gateway}}{{end}}", net)

	docker(t, "volume", "create", "--driver", "local", "--opt", "type=tmpfs", "--opt", "device=tmpfs", "--opt", "o=size=1m,uid=1000,gid=1000,mode=0700", vol)
	docker(t, "run", "-d", "--name", px, "--network", net, "--user", "1000:1000", "--read-only", "--cap-drop", "ALL",
		"--security-opt", "no-new-privileges", "--memory", "256m", "--memory-swap", "256m", "--pids-limit", "64", "--cpu-period", "100000", "--cpu-quota", "50000",
		"--ulimit", "nofile=1024:1024", "--log-driver", "json-file", "--log-opt", "max-size=1m", "--log-opt", "max-file=2",
		"--add-host", "reserved.egress.test:192.0.2.7", "--add-host", "private.egress.test:10.9.8.7",
		"-v", vol+":/opt/agentrun/egress", "-v", proxyBin+":/opt/agentrun/computerd-egress:ro", img,
		"/opt/agentrun/computerd-egress", "egress", "--socket", "/opt/agentrun/egress/egress.sock", "--deadline", iso(2*time.Minute),
		"--allow", upIP+"/32", "--allow", "up.egress.test",
		"--allow", "reserved.egress.test", "--allow", "private.egress.test", "--allow", "nothing.egress.test", "--reachable-for-tests", subnet, "--hint", "ask the test")
	waitLog(t, px, "computerd egress: ready on /opt/agentrun/egress/egress.sock", 10*time.Second)

	c := run(t, []string{"--user", "1000:1000", "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--network", "none",
		"--tmpfs", "/work:mode=0700,uid=1000,gid=1000", "--tmpfs", "/run/agentrun:mode=0700,uid=1000,gid=1000", "-e", "HOME=/work",
		"-v", vol + ":/opt/agentrun/egress:ro", "-v", kit + ":/opt/egresskit:ro"},
		"init", "--deadline", iso(2*time.Minute), "--egress", "/opt/agentrun/egress/egress.sock")
	cl := c.connect(t)
	kitRun := func(args ...string) string {
		var r struct{ Stdout []byte }
		cl.Must(t, "exec.run", map[string]any{"argv": append([]string{"/opt/egresskit"}, args...), "timeoutMs": 30000}, &r)
		return string(r.Stdout)
	}
	accepted := func() int { return strings.Count(waitLog(t, up, "serving", time.Second), "accepted") }

	if env := sh(t, cl, "env"); !strings.Contains(env, "HTTPS_PROXY=http://127.0.0.1:3128") || !strings.Contains(env, "NO_PROXY=localhost,127.0.0.1,::1") {
		t.Fatalf("env: %s", env)
	}
	t.Run("allowed over HTTP, by address and by a listed name", func(t *testing.T) {
		for _, u := range []string{"http://" + upIP + "/a", "http://up.egress.test/b"} {
			if got := kitRun("get", u); !strings.HasPrefix(got, "200 hello from upstream /") {
				t.Fatalf("%s: %q", u, got)
			}
		}
	})
	t.Run("allowed over HTTPS through CONNECT", func(t *testing.T) {
		if got := kitRun("get", "https://"+upIP+"/tls"); got != "200 hello from upstream /tls" {
			t.Fatalf("%q", got)
		}
	})
	before := accepted()
	t.Run("refused in words, with nothing reaching the upstream", func(t *testing.T) {
		for _, u := range []string{"http://" + gateway + "/", "http://169.254.169.254/latest/meta-data/", "http://0x7f000001/", "http://evil.egress.test/", "http://[::ffff:" + upIP + "]/"} {
			if got := kitRun("get", u); !strings.HasPrefix(got, "403 403 ") || !strings.Contains(got, "is not on this box's network list: ask the test") {
				t.Errorf("%s: %q", u, got)
			}
		}
		if got := kitRun("get", "http://"+upIP+":8080/"); got != "403 403 "+upIP+" is reached on ports 80 and 443 alone, not on port 8080: ask the test\n" {
			t.Errorf("another port: %q", got)
		}
		if got := kitRun("socket", "127.0.0.1:3128", "CONNECT [::ffff:"+upIP+"]:443 HTTP/1.1\\r\\n\\r\\n"); !strings.HasPrefix(got, "HTTP/1.1 403") || !strings.Contains(got, "is not on this box's network list") {
			t.Errorf("CONNECT to the IPv4-mapped form of a listed address: %q", got)
		}
	})
	t.Run("a listed name the proxy will not dial says why, on HTTP, CONNECT and SOCKS5", func(t *testing.T) {
		for _, tc := range []struct{ host, status, words, socks string }{
			{"reserved.egress.test", "403", "reserved.egress.test is on this box's network list but resolves to a reserved address, which this proxy never connects to: the list is right, the resolver this box's host uses is not", "reply 2"},
			{"private.egress.test", "403", "private.egress.test is on this box's network list but resolves to a private address, which this proxy never connects to: the list is right, the resolver this box's host uses is not", "reply 2"},
			{"nothing.egress.test", "502", "nothing.egress.test is on this box's network list but did not resolve to any address: the list is right; check the name, and the resolver this box's host uses", "reply 4"},
		} {
			if got := kitRun("get", "http://"+tc.host+"/"); got != tc.status+" "+tc.status+" "+tc.words+"\n" {
				t.Errorf("HTTP to %s: %q", tc.host, got)
			}
			if got := kitRun("socket", "127.0.0.1:3128", "CONNECT "+tc.host+":443 HTTP/1.1\\r\\n\\r\\n"); !strings.HasPrefix(got, "HTTP/1.1 "+tc.status) || !strings.HasSuffix(got, tc.status+" "+tc.words+"\n") {
				t.Errorf("CONNECT to %s: %q", tc.host, got)
			}
			if got := kitRun("socks", "127.0.0.1:3128", tc.host, "443"); got != tc.socks {
				t.Errorf("SOCKS5 to %s: %q, want %s", tc.host, got, tc.socks)
			}
		}
	})
	t.Run("a program that ignores the proxy variables reaches nothing", func(t *testing.T) {
		if got := kitRun("direct", upIP+":80"); !strings.HasPrefix(got, "no route") {
			t.Fatalf("%q", got)
		}
	})
	t.Run("a direct dial of the socket meets the same rules", func(t *testing.T) {
		if got := kitRun("socket", "/opt/agentrun/egress/egress.sock", "CONNECT "+gateway+":443 HTTP/1.1\\r\\n\\r\\n"); !strings.HasPrefix(got, "HTTP/1.1 403") {
			t.Fatalf("%q", got)
		}
		if got := kitRun("socket", "/opt/agentrun/egress/egress.sock", "GET http://"+upIP+"/sock HTTP/1.1\\r\\nHost: "+upIP+"\\r\\n\\r\\n"); !strings.Contains(got, "hello from upstream /sock") {
			t.Fatalf("%q", got)
		}
	})
	if n := accepted() - before; n != 1 {
		t.Fatalf("the upstream accepted %d connections during the refusals and the one allowed socket request, want 1", n)
	}
	logs := waitLog(t, px, "ready", time.Second)
	for _, class := range []string{`"class":"allowed"`, `"class":"off-list"`, `"class":"metadata"`, `"class":"loopback"`, `"class":"port"`, `"class":"reserved"`, `"class":"private"`, `"class":"no-answer"`} {
		if !strings.Contains(logs, class) {
			t.Errorf("the proxy's log lacks %s: %s", class, logs)
		}
	}
	if strings.Contains(logs, "meta-data") || strings.Contains(logs, "/sock") {
		t.Fatalf("the proxy logged a path: %s", logs)
	}
}
