package methods

import (
	"context"
	"io"

	"agentrun.dev/computerd/internal/deadline"
	"agentrun.dev/computerd/internal/execrun"
	"agentrun.dev/computerd/internal/files"
	"agentrun.dev/computerd/internal/input"
	"agentrun.dev/computerd/internal/proc"
	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/runs"
	"agentrun.dev/computerd/internal/screen"
	"agentrun.dev/computerd/internal/x11"
)

// Daemon is what every connection shares: one set of guards, one process table, one deadline,
// one display.
type Daemon struct {
	Runs     *runs.Registry
	Procs    *proc.Table
	Deadline *deadline.Clock // nil outside init: deadline.extend is then unsupported
	Display  *x11.Display
	Screen   *screen.Screen
	Input    *input.Input
	// Browser: init was started as a browser's (--kind browser), so hello says kind browser.
	Browser bool
}

// New makes a daemon; clock is nil outside init, display nil for none.
func New(clock *deadline.Clock, display *x11.Display) *Daemon {
	if display == nil {
		display = x11.NewDisplay("", "")
	}
	reg := runs.New()
	return &Daemon{Runs: reg, Procs: proc.New(reg), Deadline: clock, Display: display, Screen: screen.New(display), Input: input.New(display)}
}

// Session is one connection's own state: its pulls and pushes, its shot and watch.
type Session struct {
	transfers *files.Transfers
	screen    *screen.Session
}

// NewSession starts a connection's state.
func (d *Daemon) NewSession() *Session {
	return &Session{transfers: files.NewTransfers(), screen: screen.NewSession()}
}

// Close ends what the connection held.
func (s *Session) Close() {
	s.transfers.Close()
	s.screen.Close()
}

// Table maps each method to its handler for one connection.
func (d *Daemon) Table(s *Session) map[string]rpc.Entry {
	t := map[string]rpc.Entry{
		"hello":          rpc.Def(d.hello),
		"ping":           rpc.Def(ping),
		"exec.run":       rpc.Def(execrun.Handler(d.Runs)),
		"files.read":     rpc.Def(files.Read),
		"files.write":    rpc.Def(files.Write),
		"files.stat":     rpc.Def(files.StatPath),
		"files.list":     rpc.Def(files.List),
		"files.mkdir":    rpc.Def(files.Mkdir),
		"files.move":     rpc.Def(files.Move),
		"files.remove":   rpc.Def(files.Remove),
		"tar.pull.begin": rpc.Def(s.transfers.PullBegin),
		"tar.pull.read":  rpc.Def(s.transfers.PullRead).Ordered(),
		"tar.pull.end":   rpc.Def(s.transfers.PullEnd).Ordered(),
		"tar.push.begin": rpc.Def(s.transfers.PushBegin),
		"tar.push.write": rpc.Def(s.transfers.PushWrite).Ordered(),
		"tar.push.end":   rpc.Def(s.transfers.PushEnd).Ordered(),
		"process.start":  rpc.Def(d.Procs.Start),
		"process.read":   rpc.Def(d.Procs.Read),
		"process.write":  rpc.Def(d.Procs.Write),
		"process.signal": rpc.Def(d.Procs.Signal),
		"process.resize": rpc.Def(d.Procs.Resize),
		"process.list":   rpc.Def(d.Procs.List),
		"process.wait":   rpc.Def(d.Procs.Wait),
		"screen.shot": rpc.Def(func(ctx context.Context, p screen.ShotParams) (screen.ShotResult, error) {
			return s.screen.Shot(ctx, d.Screen, p)
		}),
		"screen.read": rpc.Def(s.screen.Read),
		"screen.watch": rpc.Def(func(ctx context.Context, p screen.WatchParams) (screen.WatchResult, error) {
			return s.screen.Watch(ctx, d.Screen, p)
		}),
		"input.actions": rpc.Def(d.Input.Actions),
	}
	if d.Deadline != nil {
		t["deadline.extend"] = rpc.Def(d.Deadline.Extend)
	} else {
		t["deadline.extend"] = rpc.Def(func(context.Context, deadline.ExtendParams) (deadline.ExtendResult, error) {
			return deadline.ExtendResult{}, rpc.Errorf(rpc.Unsupported, "this daemon has no deadline to move: it was not started by init")
		})
	}
	return t
}

// Serve answers one connection until its input ends, then ends what the connection held.
func (d *Daemon) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	s := d.NewSession()
	defer s.Close()
	table := d.Table(s)
	return rpc.Serve(ctx, r, w, func(m string) (rpc.Entry, bool) {
		e, ok := table[m]
		return e, ok
	})
}
