package isolate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"agentrun.dev/computerd/internal/privdrop"
)

func TestCheckFiltered(t *testing.T) {
	for _, tc := range []struct {
		task   privdrop.Status
		before int
		bad    string
	}{
		{privdrop.Status{Seccomp: 2, SeccompFilters: 1}, 0, ""},
		{privdrop.Status{Seccomp: 2, SeccompFilters: 2}, 1, ""}, // under a vendor's filter of its own
		{privdrop.Status{Seccomp: 2, SeccompFilters: -1}, -1, ""},
		{privdrop.Status{Seccomp: 0, SeccompFilters: 0}, 0, "Seccomp is 0"},
		{privdrop.Status{Seccomp: 2, SeccompFilters: 1}, 1, "Seccomp_filters is 1, not 2"},
	} {
		err := CheckFiltered(tc.task, tc.before)
		if (tc.bad == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.bad)) {
			t.Errorf("%+v before %d: %v, want %q", tc.task, tc.before, err, tc.bad)
		}
	}
}

// fakeProc writes a /proc tree: one process per entry, each with its tasks' status files.
func fakeProc(t *testing.T, procs map[string]map[string]string, cmdlines map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for pid, tasks := range procs {
		for tid, status := range tasks {
			dir := filepath.Join(root, pid, "task", tid)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "status"), []byte(status), 0o644)
		}
		os.WriteFile(filepath.Join(root, pid, "cmdline"), []byte(cmdlines[pid]), 0o644)
	}
	os.MkdirAll(filepath.Join(root, "self"), 0o755)
	return root
}

// status is a task's whole status file, as the kernel writes it, with its name and uids.
func status(name string, uids string) string {
	return "Name:\t" + name + "\nUid:\t" + uids + "\nGid:\t0\t0\t0\t0\nNoNewPrivs:\t0\nCapInh:\t0000000000000000\n" +
		"CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t000001ffffffffff\nCapAmb:\t0000000000000000\nSeccomp:\t0\n"
}

func TestCheckUserNamesEveryHolder(t *testing.T) {
	root := fakeProc(t, map[string]map[string]string{
		"1":   {"1": status("computerd", "0\t0\t0\t0")},
		"7":   {"7": status("envd", "0\t0\t0\t0")},
		"30":  {"30": status("bash", "2510\t2510\t2510\t2510")},
		"31":  {"31": status("sudo", "0\t2510\t0\t2510")},                                             // effective alone
		"44":  {"44": status("agent", "0\t0\t0\t0"), "45": status("agent", "2510\t2510\t2510\t2510")}, // one thread of it
		"50":  {"50": status("kworker/0:1", "2510\t2510\t2510\t2510")},                                // no command line
		"900": {"900": status("computerd", "2510\t2510\t2510\t2510")},                                 // self
	}, map[string]string{"30": "bash\x00-l\x00", "31": "sudo\x00-u\x00#2510\x00sh\x00", "44": "/usr/bin/agent\x00--port\x002280\x00"})
	err := CheckUser(root, 2510, 900)
	if err == nil {
		t.Fatal("a uid four processes hold was let through")
	}
	want := "pid 30 (bash -l), pid 31 (sudo -u #2510 sh), pid 44 (/usr/bin/agent --port 2280), pid 50 (kworker/0:1)"
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "uid 2510") || strings.Contains(err.Error(), "pid 900") {
		t.Fatalf("the refusal %q does not name %q alone", err, want)
	}
	if err := CheckUser(root, 1000, 900); err != nil {
		t.Fatalf("a uid no one holds: %v", err)
	}
	if err := CheckUser(root, 0, 900); err == nil || !strings.Contains(err.Error(), "refuses uid 0") {
		t.Fatalf("uid 0: %v", err)
	}
	if err := CheckUser(t.TempDir(), 1000, 1); err == nil {
		t.Fatal("a /proc with no process read as no holder")
	}
	// A status that cannot be read is an error, never a process passed over.
	torn := fakeProc(t, map[string]map[string]string{"30": {"30": "Name:\tbash\nUid:\t2510\t2510\n"}}, nil)
	if err := CheckUser(torn, 2510, 1); err == nil || !strings.Contains(err.Error(), "reading who holds uid 2510") {
		t.Fatalf("a torn status: %v", err)
	}
}

func TestCheckThreads(t *testing.T) {
	const old, new = "net:[4026531840]", "net:[4026532281]"
	if ns, err := CheckThreads(map[string]string{"1": new, "7": new, "8": new}, old); err != nil || ns != new {
		t.Fatalf("all moved: %q %v", ns, err)
	}
	for name, tc := range map[string]struct {
		links map[string]string
		words string
	}{
		"one stayed":   {map[string]string{"1": new, "7": old, "8": new}, "threads 7 in net:[4026531840], the one it started in"},
		"none moved":   {map[string]string{"1": old, "7": old}, "still in the network namespace it started in"},
		"two new ones": {map[string]string{"1": new, "7": "net:[4026532999]"}, "2 network namespaces"},
		"no thread":    {map[string]string{}, "no thread"},
	} {
		if _, err := CheckThreads(tc.links, old); err == nil || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%s: %v, want %q", name, err, tc.words)
		}
	}
}

func TestCheckLoopbackAlone(t *testing.T) {
	lo := Iface{Name: "lo", Up: true, Addrs: []string{"127.0.0.1/8", "::1/128"}}
	down, err := CheckLoopbackAlone([]Iface{lo, {Name: "tunl0"}, {Name: "sit0"}, {Name: "gre0"}})
	if err != nil || strings.Join(down, ",") != "gre0,sit0,tunl0" {
		t.Fatalf("lo with the fallback tunnels: %v %v", down, err)
	}
	if got := Live([]Iface{lo, {Name: "tunl0"}, {Name: "sit0"}}); strings.Join(got, ",") != "lo" {
		t.Fatalf("Live: %v", got)
	}
	for name, tc := range map[string]struct {
		ifs   []Iface
		words string
	}{
		"lo down":         {[]Iface{{Name: "lo"}}, "lo is down"},
		"lo unaddressed":  {[]Iface{{Name: "lo", Up: true}}, "lo holds no 127.0.0.1 (it holds no address)"},
		"no lo":           {[]Iface{{Name: "sit0"}}, "there is no lo"},
		"eth0 up":         {[]Iface{lo, {Name: "eth0", Up: true, Addrs: []string{"172.17.0.2/16"}}}, "eth0 is up with 172.17.0.2/16"},
		"a tunnel up":     {[]Iface{lo, {Name: "tunl0", Up: true}}, "tunl0 is up"},
		"a down one held": {[]Iface{lo, {Name: "dummy0", Addrs: []string{"10.0.0.1/8"}}}, "dummy0 holds 10.0.0.1/8"},
	} {
		if _, err := CheckLoopbackAlone(tc.ifs); err == nil || !strings.Contains(err.Error(), tc.words) {
			t.Errorf("%s: %v, want %q", name, err, tc.words)
		}
	}
}
