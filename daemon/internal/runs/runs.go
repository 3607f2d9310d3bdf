package runs

import (
	"context"
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
	mu       sync.Mutex
	closing  bool
	starting sync.WaitGroup
	live     map[*guard.Run]struct{}
}

// New makes an empty registry.
func New() *Registry { return &Registry{live: map[*guard.Run]struct{}{}} }

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
	run, err := guard.Start(ctx, o)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	r.live[run] = struct{}{}
	r.mu.Unlock()
	go func() {
		<-run.Ended()
		r.mu.Lock()
		delete(r.live, run)
		r.mu.Unlock()
	}()
	return run, nil
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
