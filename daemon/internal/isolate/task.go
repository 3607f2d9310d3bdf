package isolate

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Task is what isolate reads of a /proc/<pid>/task/<tid>/status file.
type Task struct {
	Name string
	UIDs [4]int // real, effective, saved, filesystem
	// Seccomp is the mode (2: filter); Filters the filters installed, -1 when the kernel does
	// not say (before 5.9).
	Seccomp, Filters int
	CapEff           uint64
}

// ParseTask reads a status file. Name and Uid are required; a Seccomp or CapEff field that is
// missing reads -1 and 0, and a check that needs it says so.
func ParseTask(r io.Reader) (Task, error) {
	t := Task{Seccomp: -1, Filters: -1}
	seen := map[string]bool{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		var err error
		switch key {
		case "Name":
			t.Name = val
		case "Uid":
			f := strings.Fields(val)
			if len(f) != 4 {
				return Task{}, fmt.Errorf("status field Uid %q: %d ids, not 4", val, len(f))
			}
			for i := range f {
				if t.UIDs[i], err = strconv.Atoi(f[i]); err != nil {
					break
				}
			}
		case "Seccomp":
			t.Seccomp, err = strconv.Atoi(val)
		case "Seccomp_filters":
			t.Filters, err = strconv.Atoi(val)
		case "CapEff":
			t.CapEff, err = strconv.ParseUint(val, 16, 64)
		default:
			continue
		}
		if err != nil {
			return Task{}, fmt.Errorf("status field %s %q: %v", key, val, err)
		}
		seen[key] = true
	}
	if err := sc.Err(); err != nil {
		return Task{}, err
	}
	for _, k := range []string{"Name", "Uid"} {
		if !seen[k] {
			return Task{}, fmt.Errorf("status has no %s field", k)
		}
	}
	return t, nil
}

// Holds reports whether any of the task's four uids is uid.
func (t Task) Holds(uid int) bool {
	for _, u := range t.UIDs {
		if u == uid {
			return true
		}
	}
	return false
}

// CheckFiltered holds a thread's status to seccomp mode 2 with one filter more than before
// (when the kernel counts them: 5.9 and later).
func CheckFiltered(t Task, before int) error {
	if t.Seccomp != 2 {
		return fmt.Errorf("Seccomp is %d, not 2 (filter)", t.Seccomp)
	}
	if before >= 0 && t.Filters != before+1 {
		return fmt.Errorf("Seccomp_filters is %d, not %d", t.Filters, before+1)
	}
	return nil
}
