package execrun

import (
	"context"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"agentrun.dev/computerd/internal/guard"
	"agentrun.dev/computerd/internal/launch"
	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/runs"
)

// MaxOutput is the most each stream keeps, and the default: 360 KiB, so both streams in base64
// fit one 1 MiB line.
const MaxOutput = 360 << 10

// Params of exec.run.
type Params struct {
	Argv      []string          `json:"argv"`
	Cwd       string            `json:"cwd,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	User      string            `json:"user,omitempty"`
	TimeoutMs *int64            `json:"timeoutMs,omitempty"`
	MaxOutput *int              `json:"maxOutput,omitempty"`
	Stdin     *rpc.Bytes        `json:"stdin,omitempty"`
}

// Result of exec.run: exitCode is null when a signal ended the program, and signal names it.
type Result struct {
	ExitCode  *int      `json:"exitCode"`
	Signal    *string   `json:"signal"`
	Stdout    rpc.Bytes `json:"stdout"`
	Stderr    rpc.Bytes `json:"stderr"`
	TimedOut  bool      `json:"timedOut"`
	Truncated bool      `json:"truncated"`
}

// Handler serves exec.run on a registry of guards.
func Handler(reg *runs.Registry) func(context.Context, Params) (Result, error) {
	return func(ctx context.Context, p Params) (Result, error) { return Run(ctx, reg, p) }
}

// Run runs one program to its end. timeoutMs counts from the call, the start included; a
// timeout is a result, a cancel an aborted error, and both end everything the run started.
func Run(ctx context.Context, reg *runs.Registry, p Params) (Result, error) {
	limit := MaxOutput
	if p.MaxOutput != nil {
		if *p.MaxOutput < 0 || *p.MaxOutput > MaxOutput {
			return Result{}, rpc.Errorf(rpc.Limit, "maxOutput %d is past the most a stream keeps, %d bytes (360 KiB)", *p.MaxOutput, MaxOutput)
		}
		limit = *p.MaxOutput
	}
	runCtx := ctx
	if p.TimeoutMs != nil {
		if *p.TimeoutMs < 0 {
			return Result{}, rpc.Errorf(rpc.Invalid, "timeoutMs %d is negative: give milliseconds, or leave it out for no timeout", *p.TimeoutMs)
		}
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, time.Duration(*p.TimeoutMs)*time.Millisecond)
		defer cancel()
	}
	spec, cred, err := launch.Spec(launch.Request{Argv: p.Argv, Cwd: p.Cwd, Env: p.Env, User: p.User})
	if err != nil {
		return Result{}, err
	}
	run, inW, outR, errR, err := start(runCtx, reg, spec, cred)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return Result{Stdout: rpc.Bytes{}, Stderr: rpc.Bytes{}, TimedOut: true}, nil
		}
		// A run whose guard was killed reports the guard's end, even when the guard had not
		// yet reported the start (a program that kills its guard at once).
		var early *guard.KilledEarly
		if errors.As(err, &early) {
			return Result{Signal: strp(early.Signal), Stdout: rpc.Bytes{}, Stderr: rpc.Bytes{}}, nil
		}
		return Result{}, err
	}
	go func() {
		// A program that never reads its stdin ends the write with EPIPE; that is its choice.
		if p.Stdin != nil {
			inW.Write(*p.Stdin)
		}
		inW.Close()
	}()
	var out, errb capped
	out.limit, errb.limit = limit, limit
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); out.drain(outR) }()
	go func() { defer wg.Done(); errb.drain(errR) }()

	select {
	case <-run.Exited():
	case <-runCtx.Done():
		run.Stop()
		<-run.Exited()
	}
	wg.Wait()
	// The guard's done follows its report of the end at once; taken before the reply, the
	// guard waits for the caller's next run.
	<-run.Ended()
	if ctx.Err() != nil {
		return Result{}, rpc.Errorf(rpc.Aborted, "exec.run was cancelled; the program and everything it started were ended")
	}
	st := run.Status()
	res := Result{ExitCode: st.ExitCode, Stdout: out.buf, Stderr: errb.buf, Truncated: out.dropped || errb.dropped}
	if st.Signal != "" {
		res.Signal = strp(st.Signal)
	}
	res.TimedOut = runCtx.Err() != nil
	return res, nil
}

func strp(s string) *string { return &s }

// start runs spec under a guard and returns the daemon's ends of its stdin, stdout and stderr.
// A run as the daemon's own user takes the guard that waits for the next run; a run as another
// user starts its own, with that user's credential.
func start(ctx context.Context, reg *runs.Registry, spec guard.Spec, cred *syscall.Credential) (*guard.Run, *os.File, *os.File, *os.File, error) {
	var ours, theirs [3]*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			if f != nil {
				f.Close()
			}
		}
	}
	for i := range 3 {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(append(ours[:], theirs[:]...))
			return nil, nil, nil, nil, err
		}
		if i == 0 {
			theirs[i], ours[i] = r, w
		} else {
			theirs[i], ours[i] = w, r
		}
	}
	var run *guard.Run
	var err error
	if cred == nil {
		run, err = reg.StartWarm(ctx, spec, theirs)
	} else {
		run, err = reg.Start(ctx, guard.Options{Spec: spec, Stdin: theirs[0], Stdout: theirs[1], Stderr: theirs[2], Cred: cred})
	}
	closeAll(theirs[:])
	if err != nil {
		closeAll(ours[:])
		return nil, nil, nil, nil, err
	}
	return run, ours[0], ours[1], ours[2], nil
}

// capped keeps the first limit bytes of a stream and reads the rest to drop it.
type capped struct {
	limit   int
	buf     rpc.Bytes
	dropped bool
}

func (c *capped) drain(r io.ReadCloser) {
	defer r.Close()
	c.buf = rpc.Bytes{}
	chunk := make([]byte, 32<<10)
	for {
		n, err := r.Read(chunk)
		if n > 0 {
			keep := min(n, c.limit-len(c.buf))
			c.buf = append(c.buf, chunk[:keep]...)
			if keep < n {
				c.dropped = true
			}
		}
		if err != nil {
			return
		}
	}
}
