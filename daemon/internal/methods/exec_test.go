package methods

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/execrun"
	"agentrun.dev/computerd/internal/guard"
	"agentrun.dev/computerd/internal/rpctest"
)

type execResult struct {
	ExitCode  *int    `json:"exitCode"`
	Signal    *string `json:"signal"`
	Stdout    []byte  `json:"stdout"`
	Stderr    []byte  `json:"stderr"`
	TimedOut  bool    `json:"timedOut"`
	Truncated bool    `json:"truncated"`
}

func TestExecRunKeepsStdoutAndStderrApartWithTheExitCode(t *testing.T) {
	c := connect(t)
	var r execResult
	c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", "echo out; echo err >&2; exit 3"}}, &r)
	if r.ExitCode == nil || *r.ExitCode != 3 || r.Signal != nil || string(r.Stdout) != "out\n" || string(r.Stderr) != "err\n" || r.TimedOut || r.Truncated {
		t.Fatalf("got %+v (stdout %q, stderr %q)", r, r.Stdout, r.Stderr)
	}
}

func TestExecRunEndsChildrenThatSetsidOrDoubleFork(t *testing.T) {
	c := connect(t)
	m := marker()
	var r execResult
	c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", "setsid sleep " + m + " & (sleep " + m + " &) ; echo started"}}, &r)
	if string(r.Stdout) != "started\n" {
		t.Fatalf("stdout %q", r.Stdout)
	}
	if left := running("sleep\x00" + m); len(left) != 0 {
		t.Fatalf("the run returned with its children still running: %v", left)
	}
}

func TestExecRunTimeoutSendsTermThenKillTwoSecondsLater(t *testing.T) {
	c := connect(t)
	var r execResult
	start := time.Now()
	c.Must(t, "exec.run", map[string]any{"argv": []string{"sleep", "30"}, "timeoutMs": 200}, &r)
	if !r.TimedOut || r.Signal == nil || *r.Signal != "TERM" || time.Since(start) > 1500*time.Millisecond {
		t.Fatalf("a program that ends on TERM: %+v after %v", r, time.Since(start))
	}
	start = time.Now()
	c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"}, "timeoutMs": 300}, &r)
	took := time.Since(start)
	if !r.TimedOut || r.Signal == nil || *r.Signal != "KILL" || took < 2200*time.Millisecond || took > 4*time.Second {
		t.Fatalf("a program that ignores TERM: %+v after %v, want KILL about 2.3 s in", r, took)
	}
	if string(r.Stdout) != "ready\n" {
		t.Fatalf("output before the timeout was lost: %q", r.Stdout)
	}
}

// A guard that never reports its program's start (an exec stalled on a filesystem) is killed
// and the run times out: timeoutMs counts from the call, the start included.
func TestExecRunTimeoutCountsTheStart(t *testing.T) {
	m := marker()
	// A daemon reads the guard's binary once, when it is made: this one's guards only sleep.
	exe, args := guard.Exe, guard.Args
	guard.Exe, guard.Args = "/bin/sh", []string{"sh", "-c", "sleep " + m}
	d := newDaemon()
	guard.Exe, guard.Args = exe, args
	c := rpctest.Connect(t, d)
	var r execResult
	start := time.Now()
	c.Must(t, "exec.run", map[string]any{"argv": []string{"true"}, "timeoutMs": 300}, &r)
	if !r.TimedOut || time.Since(start) > 2*time.Second {
		t.Fatalf("a stalled start: %+v after %v", r, time.Since(start))
	}
	// The next warm guard is as stalled; the shutdown ends it too.
	d.Runs.Shutdown()
	gone(t, "sleep\x00"+m, 3*time.Second)
}

// A guard killed before it reports its program's start (a program can kill its guard at
// once) is the run's end, as any killed guard is; a guard that exits first is a refusal.
func TestExecRunReportsAGuardKilledBeforeItsStartReport(t *testing.T) {
	for _, tc := range []struct{ guard, want string }{
		{"kill -9 $$", "signal KILL"},
		{"exit 3", "the guard ended before its program started (exit 3)"},
	} {
		exe, args := guard.Exe, guard.Args
		guard.Exe, guard.Args = "/bin/sh", []string{"sh", "-c", tc.guard}
		d := newDaemon()
		guard.Exe, guard.Args = exe, args
		c := rpctest.Connect(t, d)
		var r execResult
		err := c.Call(t.Context(), "exec.run", map[string]any{"argv": []string{"true"}}, &r)
		var got string
		switch {
		case err != nil:
			got = err.Error()
		case r.Signal != nil:
			got = "signal " + *r.Signal
		default:
			got = fmt.Sprintf("a result with no signal: %+v", r)
		}
		if got != tc.want && !strings.HasSuffix(got, ": "+tc.want) {
			t.Errorf("guard %q: exec.run gave %q, want %q", tc.guard, got, tc.want)
		}
		d.Runs.Shutdown()
	}
}

func TestExecRunCancelIsAbortedAndEndsTheProgram(t *testing.T) {
	c := connect(t)
	m := marker()
	id, ch := c.Start("exec.run", map[string]any{"argv": []string{"sleep", m}})
	waitFor(t, func() bool { return len(running("sleep\x00"+m)) > 0 })
	c.Send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":` + jsonInt(id) + `}}`)
	rep := <-ch
	if rep.Error == nil || rep.Error.Data.Kind != "aborted" {
		t.Fatalf("a cancelled run replied %+v", rep)
	}
	gone(t, "sleep\x00"+m, 3*time.Second)
}

func TestEndOfInputCancelsExecRuns(t *testing.T) {
	c := connect(t)
	m := marker()
	_, ch := c.Start("exec.run", map[string]any{"argv": []string{"sleep", m}})
	waitFor(t, func() bool { return len(running("sleep\x00"+m)) > 0 })
	c.Close()
	rep := <-ch
	if rep.Error == nil || rep.Error.Data.Kind != "aborted" {
		t.Fatalf("a run at the end of input replied %+v", rep)
	}
	gone(t, "sleep\x00"+m, 3*time.Second)
}

func TestExecRunKeeps360KiBPerStream(t *testing.T) {
	c := connect(t)
	var r execResult
	c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", "head -c 500000 /dev/zero; head -c 1000 /dev/zero >&2"}}, &r)
	if len(r.Stdout) != execrun.MaxOutput || len(r.Stderr) != 1000 || !r.Truncated || *r.ExitCode != 0 {
		t.Fatalf("stdout %d bytes, stderr %d, truncated %v", len(r.Stdout), len(r.Stderr), r.Truncated)
	}
	c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", "head -c 100 /dev/zero"}, "maxOutput": 10}, &r)
	if len(r.Stdout) != 10 || !r.Truncated {
		t.Fatalf("maxOutput 10: stdout %d bytes, truncated %v", len(r.Stdout), r.Truncated)
	}
	if e := c.Fails(t, "exec.run", map[string]any{"argv": []string{"true"}, "maxOutput": execrun.MaxOutput + 1}); e.Data.Kind != "limit" {
		t.Fatalf("maxOutput past 360 KiB: %v", e)
	}
}

func TestExecRunEnvironmentIsPathHomeUserLognameThenEnv(t *testing.T) {
	t.Setenv("COMPUTERD_TEST_SECRET", "never-passed")
	c := connect(t)
	var r execResult
	c.Must(t, "exec.run", map[string]any{"argv": []string{"env"}, "env": map[string]string{"EXTRA": "1", "HOME": "/elsewhere"}}, &r)
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(r.Stdout)), "\n") {
		k, v, _ := strings.Cut(l, "=")
		got[k] = v
	}
	if got["PATH"] != os.Getenv("PATH") || got["HOME"] != "/elsewhere" || got["EXTRA"] != "1" || got["USER"] == "" || got["LOGNAME"] != got["USER"] || len(got) != 5 {
		t.Fatalf("environment: %v", got)
	}
}

func TestExecRunRefusesBadArgvAndMissingPrograms(t *testing.T) {
	c := connect(t)
	for _, tc := range []struct {
		params map[string]any
		kind   string
	}{
		{map[string]any{"argv": []string{}}, "invalid"},
		{map[string]any{"argv": "echo hi"}, "invalid"},
		{map[string]any{"argv": []string{"true"}, "shell": true}, "invalid"},
		{map[string]any{"argv": []string{"no-such-program-anywhere"}}, "not_found"},
		{map[string]any{"argv": []string{"true"}, "cwd": "relative/dir"}, "invalid"},
		{map[string]any{"argv": []string{"true"}, "cwd": "/no/such/dir"}, "not_found"},
		{map[string]any{"argv": []string{"true"}, "timeoutMs": -1}, "invalid"},
		{map[string]any{"argv": []string{"true"}, "user": "no-such-user-here"}, "not_found"},
	} {
		if e := c.Fails(t, "exec.run", tc.params); e.Data.Kind != tc.kind {
			t.Errorf("exec.run(%v): %v, want kind %s", tc.params, e, tc.kind)
		}
	}
}

func TestExecRunPassesStdin(t *testing.T) {
	c := connect(t)
	var r execResult
	c.Must(t, "exec.run", map[string]any{"argv": []string{"cat"}, "stdin": []byte("hello\n")}, &r)
	if string(r.Stdout) != "hello\n" {
		t.Fatalf("stdout %q", r.Stdout)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for !ok() {
		if ctx.Err() != nil {
			t.Fatal("the condition never held within 5 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func jsonInt(i int) string { b, _ := json.Marshal(i); return string(b) }

// A daemon holding CAP_SETUID and CAP_SETGID runs a program as the user asked, by name or uid:gid.
func TestExecRunAsAnotherUserWithTheCapabilities(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root with CAP_SETUID and CAP_SETGID; the denial without them is in the container tests")
	}
	c := connect(t)
	for user, want := range map[string]string{"nobody": "65534", "4321:4322": "4321 4322"} {
		var r execResult
		c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", "id -u; id -g; echo $USER"}, "user": user, "cwd": "/"}, &r)
		got := strings.Fields(string(r.Stdout))
		if len(got) < 2 || !strings.HasPrefix(strings.Join(got, " "), want) {
			t.Errorf("as %s: %q (stderr %q)", user, r.Stdout, r.Stderr)
		}
	}
}

// Run after run is served by the guard that waited for it: the guard waits again once its run
// is over (a program that could not start included), so no run's latency holds a guard's start;
// each run still has its own process group, and what a run leaves is ended with it.
func TestExecRunTakesTheGuardThatWaits(t *testing.T) {
	c := connect(t)
	m := marker()
	parentOf := func() (guardPid, pgid string) {
		var r execResult
		c.Must(t, "exec.run", map[string]any{"argv": []string{"sh", "-c", "echo $PPID $(cut -d' ' -f5 /proc/$$/stat) $$; sleep " + m + " &"}}, &r)
		f := strings.Fields(string(r.Stdout))
		if len(f) != 3 || f[1] != f[2] {
			t.Fatalf("a run's guard, group and pid: %q, want the program leading its own group", r.Stdout)
		}
		return f[0], f[1]
	}
	first, group := parentOf()
	var missing execResult
	if err := c.Call(t.Context(), "exec.run", map[string]any{"argv": []string{"no-such-program-" + m}}, &missing); err == nil {
		t.Fatal("a program not on PATH ran")
	}
	second, other := parentOf()
	if first != second || group == other {
		t.Fatalf("guards %s then %s, groups %s then %s: want one guard and a group per run", first, second, group, other)
	}
	if left := running("sleep\x00" + m); len(left) > 0 {
		t.Fatalf("what the runs left still runs: %v", left)
	}
}
