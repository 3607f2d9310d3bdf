package runs

import (
	"context"
	"os"
	"sync"
	"time"

	"agentrun.dev/computerd/internal/guard"
	"agentrun.dev/computerd/internal/rpc"
)

// Shutdown bounds, from the spec: starts under way get 3 s to start their program; whatever is
// still there 5 s after the TERM is killed.
const (
	StartGrace = 3 * time.Second
	KillAfter  = 5 * time.Second
)

// Registry is the daemon's one set of guards.
type Registry struct {
	launch   guard.Launcher
	mu       sync.Mutex
	closing  bool
	starting sync.WaitGroup
	live     map[*guard.Run]struct{}
	warm     *guard.Idle   // the next exec.run's guard, already running and waiting
	priming  chan struct{} // closed once Prime's guard is parked (or failed to start)
}

// New makes an empty registry starting guards as guard.Exe and guard.Args say now.
func New() *Registry { return &Registry{launch: guard.Default(), live: map[*guard.Run]struct{}{}} }

// ErrShuttingDown is the refusal of a start during shutdown.
var ErrShuttingDown = rpc.Errorf(rpc.Unsupported, "the computer is shutting down")

// Start starts a program under a guard, unless the computer is shutting down.
func (r *Registry) Start(ctx context.Context, o guard.Options) (*guard.Run, error) {
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		return nil, ErrShuttingDown
	}
	r.starting.Add(1)
	r.mu.Unlock()
	defer r.starting.Done()
	run, err := r.launch.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	r.add(run)
	return run, nil
}

// StartWarm starts spec, as the daemon's own user, on the guard that waits for the next run,
// handing it stdio (the caller closes its copies). The guard waits again once its run is over,
// so run after run takes a guard that already runs; only a run that finds none waiting (one
// beside another, or the first when none was started ahead) starts its own.
func (r *Registry) StartWarm(ctx context.Context, spec guard.Spec, stdio [3]*os.File) (*guard.Run, error) {
	r.mu.Lock()
	if r.closing {
		r.mu.Unlock()
		return nil, ErrShuttingDown
	}
	r.starting.Add(1)
	priming := r.priming
	r.mu.Unlock()
	defer r.starting.Done()
	// A guard Prime is starting already started before this run: waiting for it is never slower
	// than starting another.
	if priming != nil {
		select {
		case <-priming:
		case <-ctx.Done():
		}
	}
	r.mu.Lock()
	g := r.warm
	r.warm = nil
	r.mu.Unlock()
	if g != nil && !g.Alive() {
		g.Discard()
		g = nil
	}
	if g == nil {
		var err error
		if g, err = r.launch.Spawn(nil); err != nil {
			return nil, err
		}
	}
	run, err := g.Begin(ctx, spec, stdio, r.park)
	if err != nil {
		return nil, err
	}
	r.add(run)
	return run, nil
}

// Prime starts a guard that waits for the first exec.run, in the background (init, as it starts
// serving); a run that comes before it is ready waits for it.
func (r *Registry) Prime() {
	done := make(chan struct{})
	r.mu.Lock()
	r.priming = done
	r.mu.Unlock()
	go func() {
		defer func() {
			r.mu.Lock()
			r.priming = nil
			r.mu.Unlock()
			close(done)
		}()
		g, err := r.launch.Spawn(nil)
		if err != nil {
			return // the next run starts its guard itself
		}
		if !r.park(g) {
			g.Discard()
		}
	}()
}

// park keeps a guard whose run is over for the next run, when none waits and no shutdown has
// begun.
func (r *Registry) park(g *guard.Idle) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closing || r.warm != nil {
		return false
	}
	r.warm = g
	return true
}

func (r *Registry) add(run *guard.Run) {
	r.mu.Lock()
	r.live[run] = struct{}{}
	r.mu.Unlock()
	go func() {
		<-run.Ended()
		r.mu.Lock()
		delete(r.live, run)
		r.mu.Unlock()
	}()
}

// Closing reports whether shutdown has begun.
func (r *Registry) Closing() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closing
}

// Shutdown refuses new starts, waits up to StartGrace for those under way, sends every guard
// its stop (TERM, KILL 2 s later), and kills what is left KillAfter after the TERM. It returns
// once every guard is gone.
func (r *Registry) Shutdown() {
	r.mu.Lock()
	r.closing = true
	if r.warm != nil {
		r.warm.Discard()
		r.warm = nil
	}
	r.mu.Unlock()
	started := make(chan struct{})
	go func() { r.starting.Wait(); close(started) }()
	select {
	case <-started:
	case <-time.After(StartGrace):
	}
	all := r.snapshot()
	for _, run := range all {
		run.Stop()
	}
	deadline := time.After(KillAfter)
	for _, run := range all {
		select {
		case <-run.Ended():
		case <-deadline:
			for _, left := range r.snapshot() {
				left.Kill()
			}
			deadline = nil
			<-run.Ended()
		}
	}
}

func (r *Registry) snapshot() []*guard.Run {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*guard.Run, 0, len(r.live))
	for run := range r.live {
		out = append(out, run)
	}
	return out
}
