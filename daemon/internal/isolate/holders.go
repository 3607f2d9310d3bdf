package isolate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"agentrun.dev/computerd/internal/privdrop"
)

// Holder is a process holding the programs' uid.
type Holder struct {
	Pid     int
	Command string
}

func (h Holder) String() string { return fmt.Sprintf("pid %d (%s)", h.Pid, h.Command) }

// CheckUser refuses uid 0 and a uid any other process holds: such a process could be signalled,
// traced or written to by the computer's programs, and a vendor's agent among them would be
// theirs to command. procRoot is /proc, or a tree a test made; self is left out.
func CheckUser(procRoot string, uid, self int) error {
	if uid == 0 {
		return errors.New("--own-network refuses uid 0 for the computer's programs: root shares its uid with every root process of the vendor's, its agent among them; give --user a uid of its own, such as 2510:2510")
	}
	held, err := Holders(procRoot, uid, self)
	if err != nil {
		return err
	}
	if len(held) > 0 {
		names := make([]string, len(held))
		for i, h := range held {
			names[i] = h.String()
		}
		return fmt.Errorf("--own-network refuses to start while another process holds uid %d, which the computer's programs would share (they could signal, trace or write to it): %s; end them, or give --user a uid no process holds", uid, strings.Join(names, ", "))
	}
	return nil
}

// Holders lists every process other than self with a thread holding uid (real, effective,
// saved or filesystem), by pid. A process that ends while it is read is left out; a status
// that cannot be read otherwise is an error, never a process passed over.
func Holders(procRoot string, uid, self int) ([]Holder, error) {
	tasks, err := filepath.Glob(filepath.Join(procRoot, "[0-9]*", "task", "[0-9]*", "status"))
	if err != nil {
		return nil, err
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("no process is listed under %s: the uid's holders cannot be read", procRoot)
	}
	found := map[int]Holder{}
	for _, p := range tasks {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(p)))))
		if pid == self {
			continue
		}
		if _, ok := found[pid]; ok {
			continue
		}
		st, err := readStatus(p)
		if privdrop.TaskEnded(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading who holds uid %d: %w", uid, err)
		}
		if holds(st, uid) {
			found[pid] = Holder{Pid: pid, Command: command(procRoot, pid, st.Name)}
		}
	}
	out := make([]Holder, 0, len(found))
	for _, h := range found {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pid < out[j].Pid })
	return out, nil
}

// command is the process's command line, clipped, or its name when it has none (a kernel
// thread, a zombie).
func command(procRoot string, pid int, name string) string {
	b, _ := os.ReadFile(filepath.Join(procRoot, strconv.Itoa(pid), "cmdline"))
	b = bytes.TrimRight(b, "\x00")
	if len(b) == 0 {
		return name
	}
	s := strings.Map(func(r rune) rune {
		if r == 0 {
			return ' '
		}
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, string(b))
	if r := []rune(s); len(r) > 120 {
		s = string(r[:120]) + "..."
	}
	return s
}
