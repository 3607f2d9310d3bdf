package proc

import (
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"agentrun.dev/computerd/internal/guard"
	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/runs"
)

// Bounds of the table, from the spec.
const (
	MaxProcesses = 256
	RingBytes    = 8 << 20
	BudgetBytes  = 256 << 20
	MinShare     = 64 << 10
)

// Table is the daemon's one process table, shared by every connection.
type Table struct {
	runs   *runs.Registry
	starts chan struct{} // starts take turns

	mu     sync.Mutex
	byID   map[string]*Process
	order  []*Process // start order
	next   int
	max    int // processes the table holds
	kept   int // bytes kept in every ring
	ends   int // processes ended so far
	budget int
}

// New makes an empty table starting programs through reg.
func New(reg *runs.Registry) *Table {
	return &Table{runs: reg, starts: make(chan struct{}, 1), byID: map[string]*Process{}, max: MaxProcesses, budget: BudgetBytes}
}

// Process is one entry of the table.
type Process struct {
	t        *Table
	id       string
	seq      int
	argv     []string
	pty      bool
	pid      int
	run      *guard.Run
	started  time.Time
	ended    time.Time
	endedSeq int // order of ending, for letting go of rings

	streams map[string]*stream // stdout and stderr, or pty
	log     *logFile
	stdin   *os.File // a pipe's write end, or the terminal's master
	master  *os.File
	writes  chan struct{} // writes take turns
	closed  bool          // stdin closed by the caller

	changed chan struct{} // closed and replaced whenever output comes or the process ends
	exited  bool
	status  guard.Status
}

// stream is one output stream: its ring and whether its pipe has ended.
type stream struct {
	ring *ring
	eof  bool
}

// lookup finds a process by id.
func (t *Table) lookup(id string) (*Process, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p := t.byID[id]
	if p == nil {
		return nil, rpc.Errorf(rpc.NotFound, "no process %q (ids are p1, p2, ...; an ended process may have been dropped from the full table)", id)
	}
	return p, nil
}

// notify wakes every waiter on p; t.mu is held.
func (p *Process) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// append adds output to a stream under the budget; t.mu is held.
func (t *Table) append(p *Process, name string, b []byte) {
	s := p.streams[name]
	t.kept += s.ring.write(b)
	if t.kept > t.budget {
		t.enforce()
	}
	p.notify()
}

// enforce brings the rings back under the budget: first it lets go of the rings of the
// processes that ended first; then each running ring keeps an equal share (at least 64 KiB).
func (t *Table) enforce() {
	ended := make([]*Process, 0)
	for _, p := range t.order {
		if p.exited {
			ended = append(ended, p)
		}
	}
	sort.Slice(ended, func(i, j int) bool { return ended[i].endedSeq < ended[j].endedSeq })
	for _, p := range ended {
		if t.kept <= t.budget {
			return
		}
		for _, s := range p.streams {
			if !s.ring.released {
				t.kept += s.ring.release()
			}
		}
	}
	if t.kept <= t.budget {
		return
	}
	var live []*ring
	for _, p := range t.order {
		if !p.exited {
			for _, s := range p.streams {
				live = append(live, s.ring)
			}
		}
	}
	if len(live) == 0 {
		return
	}
	share := max(t.budget/len(live), MinShare)
	for _, r := range live {
		if r.limit > share {
			t.kept += r.setLimit(share)
		}
	}
}

// dropEndedFirst removes the process that ended first, to make room; t.mu is held.
func (t *Table) dropEndedFirst() {
	var first *Process
	for _, p := range t.order {
		if p.exited && (first == nil || p.endedSeq < first.endedSeq) {
			first = p
		}
	}
	if first == nil {
		return
	}
	for _, s := range first.streams {
		t.kept += s.ring.release()
	}
	if first.log != nil {
		first.log.close()
	}
	delete(t.byID, first.id)
	for i, p := range t.order {
		if p == first {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
}

// seqOf reads the number of an id, p17 -> 17.
func seqOf(id string) (int, bool) {
	if len(id) < 2 || id[0] != 'p' {
		return 0, false
	}
	n, err := strconv.Atoi(id[1:])
	return n, err == nil && n > 0
}
