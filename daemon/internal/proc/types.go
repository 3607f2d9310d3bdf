package proc

import "agentrun.dev/computerd/internal/rpc"

// Size is a terminal's size.
type Size struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// StartParams of process.start. stdin true keeps a pipe for process.write; without it (and
// without a pty) stdin is /dev/null. orphans "keep" leaves what the program started running.
type StartParams struct {
	Argv      []string          `json:"argv"`
	Cwd       string            `json:"cwd,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	User      string            `json:"user,omitempty"`
	Pty       *Size             `json:"pty,omitempty"`
	Stdin     bool              `json:"stdin,omitempty"`
	Log       string            `json:"log,omitempty"`
	WaitGroup bool              `json:"waitGroup,omitempty"`
	Orphans   string            `json:"orphans,omitempty"`
}

// StartResult: pid is the program's.
type StartResult struct {
	ID  string `json:"id"`
	Pid int    `json:"pid"`
}

// ReadParams of process.read: stream is stdout, stderr, pty or log.
type ReadParams struct {
	ID       string `json:"id"`
	Stream   string `json:"stream"`
	Offset   int64  `json:"offset"`
	MaxBytes *int   `json:"maxBytes,omitempty"`
	WaitMs   *int   `json:"waitMs,omitempty"`
}

// ReadResult of process.read.
type ReadResult struct {
	Data       rpc.Bytes `json:"data"`
	NextOffset int64     `json:"nextOffset"`
	Dropped    int64     `json:"dropped"`
	Exited     bool      `json:"exited"`
	Size       int64     `json:"size"`
	Capped     bool      `json:"capped,omitempty"`
	LogError   string    `json:"logError,omitempty"`
}

// WriteParams of process.write: close closes stdin after the data.
type WriteParams struct {
	ID    string     `json:"id"`
	Data  *rpc.Bytes `json:"data,omitempty"`
	Close bool       `json:"close,omitempty"`
}

// SignalParams of process.signal: TERM, INT, KILL or HUP.
type SignalParams struct {
	ID     string `json:"id"`
	Signal string `json:"signal"`
}

// SignalResult: note says where INT to a terminal went, or that it was not sent.
type SignalResult struct {
	Note string `json:"note,omitempty"`
}

// ResizeParams of process.resize.
type ResizeParams struct {
	ID   string `json:"id"`
	Cols int    `json:"cols"`
	Rows int    `json:"rows"`
}

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

// Empty is the result of a call that answers nothing but success.
type Empty struct{}
