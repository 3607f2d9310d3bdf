package launch

import (
	"os"
	"strings"
	"testing"
)

func TestScanPasswdFindsByNameOrUID(t *testing.T) {
	const passwd = "root:x:0:0:root:/root:/bin/bash\nbroken line\nagent:x:1000:1001::/work:/bin/sh\n"
	a, ok := scanPasswd(strings.NewReader(passwd), func(a account) bool { return a.name == "agent" })
	if !ok || a.uid != 1000 || a.gid != 1001 || a.home != "/work" {
		t.Fatalf("by name: %+v %v", a, ok)
	}
	if _, ok := scanPasswd(strings.NewReader(passwd), func(a account) bool { return a.uid == 7 }); ok {
		t.Fatal("found a uid that is not there")
	}
}

func TestEnvironmentIsPathHomeUserLognameThenEnv(t *testing.T) {
	t.Setenv("PATH", "/p")
	t.Setenv("SECRET_TOKEN", "x")
	env := environment(account{name: "agent", home: "/work"}, map[string]string{"USER": "other", "X": "1"})
	if got := strings.Join(env, " "); got != "HOME=/work LOGNAME=agent PATH=/p USER=other X=1" {
		t.Fatalf("environment: %s", got)
	}
	os.Unsetenv("PATH")
	if env := environment(account{name: "a", home: "/"}, nil); !strings.Contains(strings.Join(env, " "), "PATH="+DefaultPath) {
		t.Fatalf("without a PATH of its own: %v", env)
	}
}

func TestSpecRefusesBadRequests(t *testing.T) {
	for _, q := range []Request{{}, {Argv: []string{""}}, {Argv: []string{"a\x00b"}}, {Argv: []string{"true"}, Cwd: "rel"}, {Argv: []string{"true"}, Env: map[string]string{"A=B": "1"}}, {Argv: []string{"true"}, User: "1:x"}} {
		if _, _, err := Spec(q); err == nil {
			t.Errorf("Spec(%+v) took a bad request", q)
		}
	}
}
