package proc

import (
	"context"
	"encoding/json"

	"agentrun.dev/computerd/internal/rpc"
)

// Listing bounds: at most 768 KiB a reply, and 64 KiB of each argv in JSON.
const (
	MaxListBytes = 768 << 10
	MaxArgvBytes = 64 << 10
)

// ListParams of process.list: from is the next of the page before.
type ListParams struct {
	From string `json:"from,omitempty"`
}

// Info is one listed process; times in milliseconds since the epoch.
type Info struct {
	ID          string   `json:"id"`
	Pid         int      `json:"pid"`
	Argv        []string `json:"argv"`
	ArgvClipped bool     `json:"argvClipped"`
	Pty         bool     `json:"pty"`
	Running     bool     `json:"running"`
	ExitCode    *int     `json:"exitCode"`
	Signal      *string  `json:"signal"`
	StartedAt   int64    `json:"startedAt"`
	EndedAt     *int64   `json:"endedAt"`
}

// ListResult: when truncated, list again with from set to next.
type ListResult struct {
	Processes []Info `json:"processes"`
	Truncated bool   `json:"truncated"`
	Next      string `json:"next,omitempty"`
}

// List serves process.list: in start order; pages follow start order, not places in the table.
func (t *Table) List(_ context.Context, q ListParams) (ListResult, error) {
	from := 1
	if q.From != "" {
		n, ok := seqOf(q.From)
		if !ok {
			return ListResult{}, rpc.Errorf(rpc.Invalid, "from %q is not a process id such as p1", q.From)
		}
		from = n
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	res := ListResult{Processes: []Info{}}
	size := 0
	for _, p := range t.order {
		if p.seq < from {
			continue
		}
		info := p.info()
		b, _ := json.Marshal(info)
		if size+len(b)+1 > MaxListBytes {
			res.Truncated, res.Next = true, p.id
			break
		}
		size += len(b) + 1
		res.Processes = append(res.Processes, info)
	}
	return res, nil
}

// info is p as listed; t.mu is held.
func (p *Process) info() Info {
	argv, clipped := clipArgv(p.argv)
	in := Info{ID: p.id, Pid: p.pid, Argv: argv, ArgvClipped: clipped, Pty: p.pty, Running: !p.exited, StartedAt: p.started.UnixMilli()}
	if p.exited {
		in.ExitCode = p.status.ExitCode
		if p.status.Signal != "" {
			sig := p.status.Signal
			in.Signal = &sig
		}
		end := p.ended.UnixMilli()
		in.EndedAt = &end
	}
	return in
}

// clipArgv keeps the first arguments whose JSON fits 64 KiB.
func clipArgv(argv []string) ([]string, bool) {
	size := 2
	for i, a := range argv {
		b, _ := json.Marshal(a)
		size += len(b) + 1
		if size > MaxArgvBytes {
			return argv[:i], true
		}
	}
	return argv, false
}
