package proc

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/rpctest"
	"agentrun.dev/computerd/internal/runs"
)

var bg = context.Background()

func newTable(t *testing.T) *Table {
	reg := runs.New()
	t.Cleanup(reg.Shutdown)
	return New(reg)
}

func ip(v int) *int { return &v }

func start(t *testing.T, tb *Table, q StartParams) StartResult {
	t.Helper()
	r, err := tb.Start(bg, q)
	if err != nil {
		t.Fatalf("process.start(%v): %v", q.Argv, err)
	}
	return r
}

func wait(t *testing.T, tb *Table, id string) WaitResult {
	t.Helper()
	w, err := tb.Wait(bg, WaitParams{ID: id, TimeoutMs: 20000})
	if err != nil || w.Running {
		t.Fatalf("process.wait(%s): %+v %v", id, w, err)
	}
	return w
}

// readAll follows a stream to its end, one call in flight with waitMs.
func readAll(t *testing.T, tb *Table, id, stream string) string {
	t.Helper()
	var out []byte
	off := int64(0)
	for i := 0; i < 200; i++ {
		r, err := tb.Read(bg, ReadParams{ID: id, Stream: stream, Offset: off, WaitMs: ip(5000)})
		if err != nil {
			t.Fatalf("process.read: %v", err)
		}
		out = append(out, r.Data...)
		off = r.NextOffset
		if r.Exited {
			return string(out)
		}
	}
	t.Fatal("the stream never reported exited")
	return ""
}

func kind(err error) rpc.Kind {
	if err == nil {
		return ""
	}
	return rpc.KindOf(err)
}

func marker() string { return fmt.Sprintf("%d.%06d", 600+rand.IntN(300), rand.IntN(1e6)) }

func eventually(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("%s never held within 5 s", what)
}

func TestStartReadWaitKeepStreamsApart(t *testing.T) {
	tb := newTable(t)
	r := start(t, tb, StartParams{Argv: []string{"sh", "-c", "echo out; echo err >&2; exit 4"}})
	if r.ID != "p1" || r.Pid <= 0 {
		t.Fatalf("start: %+v", r)
	}
	if w := wait(t, tb, r.ID); w.ExitCode == nil || *w.ExitCode != 4 || w.Signal != nil {
		t.Fatalf("wait: %+v", w)
	}
	if got := readAll(t, tb, r.ID, "stdout"); got != "out\n" {
		t.Fatalf("stdout %q", got)
	}
	if got := readAll(t, tb, r.ID, "stderr"); got != "err\n" {
		t.Fatalf("stderr %q", got)
	}
	if _, err := tb.Read(bg, ReadParams{ID: r.ID, Stream: "stdout", Offset: 5}); kind(err) != rpc.Invalid {
		t.Fatalf("an offset past the end: %v", err)
	}
	if _, err := tb.Read(bg, ReadParams{ID: r.ID, Stream: "pty"}); kind(err) != rpc.Invalid {
		t.Fatalf("the pty stream of a process without one: %v", err)
	}
	if _, err := tb.Read(bg, ReadParams{ID: r.ID, Stream: "stdout", MaxBytes: ip(MaxRead + 1)}); kind(err) != rpc.Limit {
		t.Fatalf("maxBytes past 512 KiB: %v", err)
	}
	if _, err := tb.Read(bg, ReadParams{ID: r.ID, Stream: "stdout", WaitMs: ip(MaxWaitMs + 1)}); kind(err) != rpc.Invalid {
		t.Fatalf("waitMs past 30 s: %v", err)
	}
	if _, err := tb.Wait(bg, WaitParams{ID: "p99", TimeoutMs: 0}); kind(err) != rpc.NotFound {
		t.Fatalf("an unknown id: %v", err)
	}
}

func TestReadWaitsForOutputWithOneCallInFlight(t *testing.T) {
	tb := newTable(t)
	r := start(t, tb, StartParams{Argv: []string{"sh", "-c", "sleep 0.3; echo late; sleep 5"}})
	begin := time.Now()
	res, err := tb.Read(bg, ReadParams{ID: r.ID, Stream: "stdout", WaitMs: ip(5000)})
	if err != nil || string(res.Data) != "late\n" || res.Exited || time.Since(begin) < 250*time.Millisecond {
		t.Fatalf("a waiting read: %+v %v after %v", res, err, time.Since(begin))
	}
	w, _ := tb.Wait(bg, WaitParams{ID: r.ID, TimeoutMs: 50})
	if !w.Running {
		t.Fatalf("wait on timeout: %+v", w)
	}
	tb.Signal(bg, SignalParams{ID: r.ID, Signal: "TERM"})
	if w := wait(t, tb, r.ID); w.Signal == nil || *w.Signal != "TERM" || w.ExitCode != nil {
		t.Fatalf("after TERM: %+v", w)
	}
	if _, err := tb.Signal(bg, SignalParams{ID: r.ID, Signal: "TERM"}); err != nil {
		t.Fatalf("a signal to an ended process: %v", err)
	}
	if _, err := tb.Signal(bg, SignalParams{ID: r.ID, Signal: "STOP"}); kind(err) != rpc.Invalid {
		t.Fatalf("a signal not by its name: %v", err)
	}
}

func TestWriteToStdinThenClose(t *testing.T) {
	tb := newTable(t)
	r := start(t, tb, StartParams{Argv: []string{"cat"}, Stdin: true})
	d := rpc.Bytes("hello ")
	if _, err := tb.Write(bg, WriteParams{ID: r.ID, Data: &d}); err != nil {
		t.Fatal(err)
	}
	d2 := rpc.Bytes("world")
	if _, err := tb.Write(bg, WriteParams{ID: r.ID, Data: &d2, Close: true}); err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, tb, r.ID, "stdout"); got != "hello world" {
		t.Fatalf("cat echoed %q", got)
	}
	if _, err := tb.Write(bg, WriteParams{ID: r.ID, Data: &d}); kind(err) != rpc.Invalid {
		t.Fatalf("a write after close: %v", err)
	}
	noIn := start(t, tb, StartParams{Argv: []string{"true"}})
	if _, err := tb.Write(bg, WriteParams{ID: noIn.ID, Data: &d}); kind(err) != rpc.Invalid {
		t.Fatalf("a write without stdin: %v", err)
	}
}

// When the program has closed stdin a write fails at once as invalid while it runs on.
func TestWriteFailsAtOnceWhenTheProgramClosedStdin(t *testing.T) {
	tb := newTable(t)
	r := start(t, tb, StartParams{Argv: []string{"sh", "-c", "exec 0<&-; echo closed; sleep 30"}, Stdin: true})
	res, _ := tb.Read(bg, ReadParams{ID: r.ID, Stream: "stdout", WaitMs: ip(5000)})
	if string(res.Data) != "closed\n" {
		t.Fatalf("stdout %q", res.Data)
	}
	d := rpc.Bytes("x")
	begin := time.Now()
	if _, err := tb.Write(bg, WriteParams{ID: r.ID, Data: &d}); kind(err) != rpc.Invalid || time.Since(begin) > time.Second {
		t.Fatalf("a write to a closed stdin: %v after %v", err, time.Since(begin))
	}
	if w, _ := tb.Wait(bg, WaitParams{ID: r.ID}); !w.Running {
		t.Fatal("the program did not run on")
	}
}

func TestWriteTimesOutAfterTenSecondsSayingHowMuchWasWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 10 s")
	}
	tb := newTable(t)
	r := start(t, tb, StartParams{Argv: []string{"sleep", "30"}, Stdin: true})
	d := rpc.Bytes(make([]byte, 1<<20))
	begin := time.Now()
	_, err := tb.Write(bg, WriteParams{ID: r.ID, Data: &d})
	took := time.Since(begin)
	if kind(err) != rpc.Timeout || !strings.Contains(err.Error(), "of 1048576 bytes") || took < 9*time.Second || took > 12*time.Second {
		t.Fatalf("a write nobody reads: %v after %v", err, took)
	}
}

func TestPtyRunsInItsOwnSessionResizesAndTakesINT(t *testing.T) {
	tb := newTable(t)
	r := start(t, tb, StartParams{Argv: []string{"sh", "-c", "stty size; read line; echo got $line; trap 'stty size' WINCH; echo armed; while :; do sleep 0.1; done"}, Pty: &Size{Cols: 100, Rows: 30}})
	off := int64(0)
	var seen strings.Builder
	next := func(want string) {
		t.Helper()
		for end := time.Now().Add(5 * time.Second); time.Now().Before(end); {
			res, err := tb.Read(bg, ReadParams{ID: r.ID, Stream: "pty", Offset: off, WaitMs: ip(1000)})
			if err != nil {
				t.Fatal(err)
			}
			seen.Write(res.Data)
			off = res.NextOffset
			if strings.Contains(seen.String(), want) {
				return
			}
		}
		t.Fatalf("the terminal never showed %q: %q", want, seen.String())
	}
	next("30 100")
	d := rpc.Bytes("hi\n")
	if _, err := tb.Write(bg, WriteParams{ID: r.ID, Data: &d}); err != nil {
		t.Fatal(err)
	}
	next("armed")
	if _, err := tb.Resize(bg, ResizeParams{ID: r.ID, Cols: 50, Rows: 20}); err != nil {
		t.Fatal(err)
	}
	next("20 50")
	if _, err := tb.Write(bg, WriteParams{ID: r.ID, Close: true}); kind(err) != rpc.Invalid {
		t.Fatalf("close on a terminal: %v", err)
	}
	res, err := tb.Signal(bg, SignalParams{ID: r.ID, Signal: "INT"})
	if err != nil || res.Note != "" {
		t.Fatalf("INT to the foreground group: %+v %v", res, err)
	}
	if w := wait(t, tb, r.ID); w.Signal == nil || *w.Signal != "INT" {
		t.Fatalf("after ^C: %+v", w)
	}
	if _, err := tb.Resize(bg, ResizeParams{ID: r.ID, Cols: 0, Rows: 20}); kind(err) != rpc.Invalid {
		t.Fatalf("a size of 0: %v", err)
	}
}

func TestOrphansAreEndedUnlessKept(t *testing.T) {
	tb := newTable(t)
	m := marker()
	r := start(t, tb, StartParams{Argv: []string{"sh", "-c", "setsid sleep " + m + " >/dev/null 2>&1 &"}})
	wait(t, tb, r.ID)
	eventually(t, "the orphan ended", func() bool { return !rpctest.Running("sleep\x00" + m) })
	k := marker()
	r = start(t, tb, StartParams{Argv: []string{"sh", "-c", "setsid sleep " + k + " >/dev/null 2>&1 &"}, Orphans: "keep"})
	wait(t, tb, r.ID)
	time.Sleep(200 * time.Millisecond)
	if !rpctest.Running("sleep\x00" + k) {
		t.Fatal(`orphans "keep" ended the orphan`)
	}
	if _, err := tb.Start(bg, StartParams{Argv: []string{"true"}, Orphans: "forget"}); kind(err) != rpc.Invalid {
		t.Fatalf("orphans with another value: %v", err)
	}
}

func TestWaitGroupWaitsForTheWholeGroup(t *testing.T) {
	tb := newTable(t)
	begin := time.Now()
	r := start(t, tb, StartParams{Argv: []string{"sh", "-c", "sleep 0.6 & exit 3"}, WaitGroup: true})
	w := wait(t, tb, r.ID)
	if *w.ExitCode != 3 || time.Since(begin) < 550*time.Millisecond {
		t.Fatalf("waitGroup ended after %v with %+v", time.Since(begin), w)
	}
}

func TestLogHoldsTheOutputAndIsNeverMadeThroughALink(t *testing.T) {
	tb := newTable(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "logs", "deep", "run.log")
	r := start(t, tb, StartParams{Argv: []string{"sh", "-c", "echo one; echo two >&2"}, Log: log})
	wait(t, tb, r.ID)
	got := readAll(t, tb, r.ID, "log")
	if len(got) != 8 || !strings.Contains(got, "one\n") || !strings.Contains(got, "two\n") {
		t.Fatalf("the log stream holds %q", got)
	}
	os.Rename(log, log+".moved") // read through the daemon's descriptor, not the path
	if again := readAll(t, tb, r.ID, "log"); again != got {
		t.Fatalf("after a rename the log reads %q", again)
	}
	if st, err := os.Stat(log + ".moved"); err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("the log file: %v %v", st, err)
	}
	if _, err := tb.Start(bg, StartParams{Argv: []string{"true"}, Log: log + ".moved"}); kind(err) != rpc.Exists {
		t.Fatalf("a log already there: %v", err)
	}
	os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "ln"))
	if _, err := tb.Start(bg, StartParams{Argv: []string{"true"}, Log: filepath.Join(dir, "ln")}); kind(err) != rpc.Denied {
		t.Fatalf("a log at a link: %v", err)
	}
	os.Symlink(dir, filepath.Join(dir, "dirlink"))
	if _, err := tb.Start(bg, StartParams{Argv: []string{"true"}, Log: filepath.Join(dir, "dirlink", "x.log")}); kind(err) != rpc.Denied {
		t.Fatalf("a log under a link: %v", err)
	}
	if _, err := tb.Start(bg, StartParams{Argv: []string{"no-such-program-here"}, Log: filepath.Join(dir, "failed.log")}); kind(err) != rpc.NotFound {
		t.Fatalf("a start that fails: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "failed.log")); !os.IsNotExist(err) {
		t.Fatal("a start that failed left its log")
	}
}

func TestListPagesInStartOrder(t *testing.T) {
	tb := newTable(t)
	for i := 0; i < 3; i++ {
		wait(t, tb, start(t, tb, StartParams{Argv: []string{"true"}}).ID)
	}
	l, err := tb.List(bg, ListParams{})
	if err != nil || len(l.Processes) != 3 || l.Processes[0].ID != "p1" || l.Processes[2].ID != "p3" || l.Truncated {
		t.Fatalf("list: %+v %v", l, err)
	}
	p := l.Processes[0]
	if p.Running || p.ExitCode == nil || *p.ExitCode != 0 || p.EndedAt == nil || p.StartedAt == 0 || p.Argv[0] != "true" {
		t.Fatalf("an ended process: %+v", p)
	}
	l, _ = tb.List(bg, ListParams{From: "p2"})
	if len(l.Processes) != 2 || l.Processes[0].ID != "p2" {
		t.Fatalf("from p2: %+v", l)
	}
	long := make([]string, 20)
	for i := range long {
		long[i] = strings.Repeat("a", 8<<10)
	}
	argv, clipped := clipArgv(append([]string{"echo"}, long...))
	if !clipped || len(argv) >= 21 || len(argv) < 7 {
		t.Fatalf("a 160 KiB argv listed as %d arguments, clipped %v", len(argv), clipped)
	}
}

func TestAFullTableDropsTheProcessThatEndedFirst(t *testing.T) {
	tb := newTable(t)
	tb.max = 3
	a := start(t, tb, StartParams{Argv: []string{"true"}})
	wait(t, tb, a.ID)
	b := start(t, tb, StartParams{Argv: []string{"sleep", "30"}})
	c := start(t, tb, StartParams{Argv: []string{"sleep", "30"}})
	start(t, tb, StartParams{Argv: []string{"sleep", "30"}})
	if _, err := tb.Wait(bg, WaitParams{ID: a.ID}); kind(err) != rpc.NotFound {
		t.Fatalf("the ended process was not dropped: %v", err)
	}
	if _, err := tb.Start(bg, StartParams{Argv: []string{"true"}}); kind(err) != rpc.Limit {
		t.Fatalf("a start into a table where all run: %v", err)
	}
	for _, id := range []string{b.ID, c.ID} {
		if _, err := tb.Wait(bg, WaitParams{ID: id}); err != nil {
			t.Fatalf("a refused start dropped %s: %v", id, err)
		}
	}
}

func TestTheBudgetLetsGoOfEndedRingsFirst(t *testing.T) {
	tb := newTable(t)
	tb.budget = 256 << 10
	old := start(t, tb, StartParams{Argv: []string{"head", "-c", "200000", "/dev/zero"}})
	wait(t, tb, old.ID)
	readAll(t, tb, old.ID, "stdout")
	busy := start(t, tb, StartParams{Argv: []string{"head", "-c", "200000", "/dev/zero"}})
	wait(t, tb, busy.ID)
	readAll(t, tb, busy.ID, "stdout")
	r, err := tb.Read(bg, ReadParams{ID: old.ID, Stream: "stdout", Offset: 100})
	if err != nil || len(r.Data) != 0 || r.Dropped != 199900 || !r.Exited || r.Size != 200000 {
		t.Fatalf("the ring let go: %+v (%v)", r, err)
	}
	r, _ = tb.Read(bg, ReadParams{ID: busy.ID, Stream: "stdout", Offset: 0})
	if len(r.Data) == 0 {
		t.Fatal("the newer process lost its ring too")
	}
	l, _ := tb.List(bg, ListParams{})
	if len(l.Processes) != 2 {
		t.Fatal("a process whose ring was let go is no longer listed")
	}
}

func TestStartCancelledWhileWaitingForItsTurnIsAborted(t *testing.T) {
	tb := newTable(t)
	tb.starts <- struct{}{} // another start holds the turn
	ctx, cancel := context.WithTimeout(bg, 100*time.Millisecond)
	defer cancel()
	_, err := tb.Start(ctx, StartParams{Argv: []string{"true"}})
	<-tb.starts
	if kind(err) != rpc.Aborted {
		t.Fatalf("a start cancelled in its turn: %v", err)
	}
	if l, _ := tb.List(bg, ListParams{}); len(l.Processes) != 0 {
		t.Fatal("a cancelled start left a process")
	}
}

func TestLogKeepsTheFirst16MiBAndSaysItWasCapped(t *testing.T) {
	tb := newTable(t)
	log := filepath.Join(t.TempDir(), "big.log")
	r := start(t, tb, StartParams{Argv: []string{"head", "-c", "17000000", "/dev/zero"}, Log: log})
	wait(t, tb, r.ID)
	readAll(t, tb, r.ID, "stdout")
	res, err := tb.Read(bg, ReadParams{ID: r.ID, Stream: "log", Offset: MaxLog - 10})
	if err != nil || res.Size != MaxLog || !res.Capped || len(res.Data) != 10 || !res.Exited || res.Dropped != 0 {
		t.Fatalf("the log's end: size %d capped %v data %d exited %v (%v)", res.Size, res.Capped, len(res.Data), res.Exited, err)
	}
	if st, _ := os.Stat(log); st.Size() != MaxLog {
		t.Fatalf("the file holds %d bytes", st.Size())
	}
	out, _ := tb.Read(bg, ReadParams{ID: r.ID, Stream: "stdout", Offset: 0})
	if out.Dropped != 17000000-RingBytes || out.Size != 17000000 {
		t.Fatalf("the ring kept the last 8 MiB: dropped %d of %d", out.Dropped, out.Size)
	}
}

// With no ended ring left to let go, each running ring keeps an equal share of the budget.
func TestRunningRingsShareTheBudget(t *testing.T) {
	tb := newTable(t)
	tb.budget = 256 << 10
	var ids []string
	for i := 0; i < 2; i++ {
		ids = append(ids, start(t, tb, StartParams{Argv: []string{"sh", "-c", "head -c 300000 /dev/zero; echo; sleep 30"}}).ID)
	}
	for _, id := range ids {
		eventually(t, "all the output came", func() bool {
			r, _ := tb.Read(bg, ReadParams{ID: id, Stream: "stdout", Offset: 0, MaxBytes: ip(1)})
			return r.Size == 300001
		})
	}
	for _, id := range ids {
		r, err := tb.Read(bg, ReadParams{ID: id, Stream: "stdout", Offset: 0})
		// Two rings of stdout and two of stderr share 256 KiB: 64 KiB each, the least a ring keeps.
		if err != nil || r.Dropped != 300001-MinShare || len(r.Data) != MinShare || r.Exited {
			t.Fatalf("%s kept %d bytes, dropped %d (%v)", id, len(r.Data), r.Dropped, err)
		}
		tb.Signal(bg, SignalParams{ID: id, Signal: "KILL"})
	}
}
