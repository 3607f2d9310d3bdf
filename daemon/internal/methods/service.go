package methods

import (
	"context"
	"io"

	"agentrun.dev/computerd/internal/deadline"
	"agentrun.dev/computerd/internal/execrun"
	"agentrun.dev/computerd/internal/files"
	"agentrun.dev/computerd/internal/proc"
	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/runs"
)

// Daemon is what every connection shares: one set of guards, one deadline.
type Daemon struct {
	Runs     *runs.Registry
	Deadline *deadline.Clock // nil outside init: deadline.extend is then unsupported
}

// Session is one connection's own state.
type Session struct{}

// NewSession starts a connection's state.
func (d *Daemon) NewSession() *Session { return &Session{} }

// Table maps each method to its handler for one connection.
func (d *Daemon) Table(s *Session) map[string]rpc.Entry {
	t := map[string]rpc.Entry{
		"hello":    rpc.Def(hello),
		"ping":     rpc.Def(ping),
		"exec.run": rpc.Def(execrun.Handler(d.Runs)),
	}
	// Declared now so the method table is whole; each is replaced by its handler as it lands.
	for name, e := range map[string]rpc.Entry{
		"files.read":     pending[files.ReadParams, files.ReadResult](),
		"files.write":    pending[files.WriteParams, files.WriteResult](),
		"files.stat":     pending[files.StatParams, files.Stat](),
		"files.list":     pending[files.ListParams, files.ListResult](),
		"files.mkdir":    pending[files.MkdirParams, files.Empty](),
		"files.move":     pending[files.MoveParams, files.Empty](),
		"files.remove":   pending[files.RemoveParams, files.Empty](),
		"tar.pull.begin": pending[files.PathParams, files.IDResult](),
		"tar.pull.read":  pending[files.PullReadParams, files.PullReadResult](),
		"tar.pull.end":   pending[files.IDParams, files.Empty](),
		"tar.push.begin": pending[files.PathParams, files.IDResult](),
		"tar.push.write": pending[files.PushWriteParams, files.Empty](),
		"tar.push.end":   pending[files.IDParams, files.PushEndResult](),
		"process.start":  pending[proc.StartParams, proc.StartResult](),
		"process.read":   pending[proc.ReadParams, proc.ReadResult](),
		"process.write":  pending[proc.WriteParams, proc.Empty](),
		"process.signal": pending[proc.SignalParams, proc.SignalResult](),
		"process.resize": pending[proc.ResizeParams, proc.Empty](),
		"process.list":   pending[proc.ListParams, proc.ListResult](),
		"process.wait":   pending[proc.WaitParams, proc.WaitResult](),
	} {
		t[name] = e
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

func pending[P, R any]() rpc.Entry {
	return rpc.Def(func(context.Context, P) (R, error) {
		var r R
		return r, rpc.Errorf(rpc.Unsupported, "not in this build yet")
	})
}

// Serve answers one connection until its input ends, then ends what the connection held.
func (d *Daemon) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	s := d.NewSession()
	table := d.Table(s)
	return rpc.Serve(ctx, r, w, func(m string) (rpc.Handler, bool) {
		e, ok := table[m]
		return e.Handler, ok
	})
}
