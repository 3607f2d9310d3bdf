package guard

// Spec is what the daemon asks of a guard for one run, sent as a line on its control socket
// with the program's stdin, stdout and stderr beside it (SCM_RIGHTS).
type Spec struct {
	Argv []string `json:"argv"`
	Dir  string   `json:"dir,omitempty"`
	Env  []string `json:"env"`
	// Pty: the guard's stdin is a terminal; the program gets its own session with it as the
	// controlling terminal (setsid, TIOCSCTTY).
	Pty bool `json:"pty,omitempty"`
	// WaitGroup: the program's end is reported once its process group (with a pty, its
	// session) has no live process left.
	WaitGroup bool `json:"waitGroup,omitempty"`
	// KeepOrphans: what the program leaves running is not ended with it.
	KeepOrphans bool `json:"keepOrphans,omitempty"`
}

// report is one line from the guard to the daemon.
type report struct {
	Started  int     `json:"started,omitempty"`
	Error    string  `json:"error,omitempty"`
	Kind     string  `json:"kind,omitempty"`
	Exited   bool    `json:"exited,omitempty"`
	ExitCode *int    `json:"exitCode,omitempty"`
	Signal   string  `json:"signal,omitempty"`
	Note     *string `json:"note,omitempty"`
	// Done: the run is over and nothing is left under the guard, which waits for the next.
	Done bool `json:"done,omitempty"`
}

// Control lines from the daemon to the guard. End of the socket is stop: no program outlives
// the daemon. A command that comes while the guard waits between runs is for a run already
// over, and is dropped.
const (
	cmdStop   = "stop"   // TERM to the group and all under the guard, KILL 2 s later
	cmdSignal = "signal" // signal NAME: to the program's group (each group with waitGroup)
	cmdIntFG  = "intfg"  // intfg PGID: INT to a terminal's foreground group, checked again first
)

// Status is how a program ended: an exit code, or the signal that ended it.
type Status struct {
	ExitCode *int
	Signal   string
}
