package proc

import (
	"context"
	"time"

	"agentrun.dev/computerd/internal/rpc"
)

// MaxWaitTimeoutMs is a day.
const MaxWaitTimeoutMs = 24 * 60 * 60 * 1000

// WaitParams of process.wait: timeoutMs from 0 to a day.
type WaitParams struct {
	ID        string `json:"id"`
	TimeoutMs int64  `json:"timeoutMs"`
}

// WaitResult: running is true on timeout.
type WaitResult struct {
	Running  bool    `json:"running"`
	ExitCode *int    `json:"exitCode"`
	Signal   *string `json:"signal"`
}

// Wait serves process.wait: up to timeoutMs for the end; running is true on timeout.
func (t *Table) Wait(ctx context.Context, q WaitParams) (WaitResult, error) {
	if q.TimeoutMs < 0 || q.TimeoutMs > MaxWaitTimeoutMs {
		return WaitResult{}, rpc.Errorf(rpc.Invalid, "timeoutMs %d is outside 0 to %d (a day)", q.TimeoutMs, MaxWaitTimeoutMs)
	}
	p, err := t.lookup(q.ID)
	if err != nil {
		return WaitResult{}, err
	}
	timer := time.NewTimer(time.Duration(q.TimeoutMs) * time.Millisecond)
	defer timer.Stop()
	select {
	case <-p.run.Exited():
	case <-timer.C:
	case <-ctx.Done():
		return WaitResult{}, rpc.Errorf(rpc.Aborted, "process.wait was cancelled")
	}
	select {
	case <-p.run.Exited():
		st := p.run.Status()
		res := WaitResult{ExitCode: st.ExitCode}
		if st.Signal != "" {
			res.Signal = &st.Signal
		}
		return res, nil
	default:
		return WaitResult{Running: true}, nil
	}
}
