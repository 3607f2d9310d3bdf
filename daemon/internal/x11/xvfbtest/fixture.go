package xvfbtest

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	built     string
	buildErr  error
)

// FixtureBinary builds cmd/fixture once per test binary.
func FixtureBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..", "..")
		dir, err := os.MkdirTemp("", "computerd-fixture-")
		if err != nil {
			buildErr = err
			return
		}
		built = filepath.Join(dir, "computerd-fixture")
		cmd := exec.Command("go", "build", "-o", built, "./cmd/fixture")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = &buildError{string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("building the fixture: %v", buildErr)
	}
	return built
}

type buildError struct{ out string }

func (e *buildError) Error() string { return e.out }

// Event is one line of the fixture's log.
type Event struct {
	Event     string   `json:"event"`
	Button    string   `json:"button,omitempty"`
	Point     [2]int   `json:"point"`
	Count     int      `json:"count,omitempty"`
	Key       string   `json:"key,omitempty"`
	Modifiers []string `json:"modifiers,omitempty"`
	Text      string   `json:"text,omitempty"`
	Dx        int      `json:"dx,omitempty"`
	Dy        int      `json:"dy,omitempty"`
}

// Fixture is a running fixture and its log.
type Fixture struct {
	Log  string
	read int
}

// StartFixture runs the fixture on display and waits for its ready line.
func StartFixture(t testing.TB, display string) *Fixture {
	t.Helper()
	f := &Fixture{Log: filepath.Join(t.TempDir(), "fixture.log")}
	cmd := exec.Command(FixtureBinary(t), "--log", f.Log)
	cmd.Env = []string{"DISPLAY=" + display, "PATH=/usr/bin:/bin"}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if evs := f.Until(t, func(evs []Event) bool { return len(evs) > 0 }); evs[0].Event != "ready" {
		t.Fatalf("the fixture's first line is %+v, not ready (%s)", evs[0], stderr.String())
	}
	return f
}

// Events reads the lines logged since the last call.
func (f *Fixture) Events(t testing.TB) []Event {
	t.Helper()
	file, err := os.Open(f.Log)
	if err != nil {
		return nil
	}
	defer file.Close()
	var out []Event
	sc := bufio.NewScanner(file)
	n := 0
	for sc.Scan() {
		n++
		if n <= f.read {
			continue
		}
		var e Event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("the fixture logged %q", sc.Text())
		}
		out = append(out, e)
	}
	f.read = n
	return out
}

// Until reads lines until done holds for all read so far (10 s at most).
func (f *Fixture) Until(t testing.TB, done func([]Event) bool) []Event {
	t.Helper()
	var all []Event
	end := time.Now().Add(10 * time.Second)
	for {
		all = append(all, f.Events(t)...)
		if done(all) {
			return all
		}
		if time.Now().After(end) {
			t.Fatalf("the fixture's log never showed what was awaited; it has %+v", all)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Quiet reads lines for d and expects none.
func (f *Fixture) Quiet(t testing.TB, d time.Duration) {
	t.Helper()
	time.Sleep(d)
	if evs := f.Events(t); len(evs) > 0 {
		t.Fatalf("the fixture logged %+v where nothing should have reached it", evs)
	}
}
