package privdrop

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Status is what the read-backs need of /proc/<pid>/task/<tid>/status: this package's, and
// package isolate's (the uid's holders, the seccomp filter).
type Status struct {
	Name                                   string
	CapInh, CapPrm, CapEff, CapBnd, CapAmb uint64
	NoNewPrivs                             int
	UIDs, GIDs                             [4]int // real, effective, saved, filesystem
	Groups                                 []int
	// Seccomp is the mode (2: filter); SeccompFilters how many are installed, -1 where the
	// kernel does not say (before 5.9).
	Seccomp, SeccompFilters int
	seen                    map[string]bool
}

var required = []string{"CapInh", "CapPrm", "CapEff", "CapBnd", "Uid", "Gid"}

// unreported are fields gVisor's /proc leaves out: Check counts one missing as falling short
// until the reader fills it from the kernel itself (Reported, Fill).
var unreported = []string{"CapAmb", "NoNewPrivs"}

// ParseStatus reads a status file; a field the read-back needs that is missing is an error, and
// so is a failed read, carried whole: a task that ends after its status is opened fails the read
// with ESRCH (see TaskEnded), which must not pass for a status with no fields.
func ParseStatus(r io.Reader) (Status, error) {
	s := Status{NoNewPrivs: -1, Seccomp: -1, SeccompFilters: -1, seen: map[string]bool{}}
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
			s.Name = val
		case "Seccomp":
			s.Seccomp, err = strconv.Atoi(val)
		case "Seccomp_filters":
			s.SeccompFilters, err = strconv.Atoi(val)
		case "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb":
			var v uint64
			v, err = strconv.ParseUint(val, 16, 64)
			caps := map[string]*uint64{"CapInh": &s.CapInh, "CapPrm": &s.CapPrm, "CapEff": &s.CapEff, "CapBnd": &s.CapBnd, "CapAmb": &s.CapAmb}
			*caps[key] = v
		case "NoNewPrivs":
			s.NoNewPrivs, err = strconv.Atoi(val)
		case "Uid", "Gid":
			f := strings.Fields(val)
			if len(f) != 4 {
				err = fmt.Errorf("%d ids", len(f))
				break
			}
			dst := &s.UIDs
			if key == "Gid" {
				dst = &s.GIDs
			}
			for i := range f {
				if dst[i], err = strconv.Atoi(f[i]); err != nil {
					break
				}
			}
		case "Groups":
			for _, g := range strings.Fields(val) {
				n, e := strconv.Atoi(g)
				if e != nil {
					err = e
					break
				}
				s.Groups = append(s.Groups, n)
			}
		default:
			continue
		}
		if err != nil {
			return Status{}, fmt.Errorf("status field %s %q: %v", key, val, err)
		}
		s.seen[key] = true
	}
	if err := sc.Err(); err != nil {
		return Status{}, err
	}
	for _, k := range required {
		if !s.seen[k] {
			return Status{}, fmt.Errorf("status has no %s field", k)
		}
	}
	return s, nil
}

// Reported tells whether the status file held the field.
func (s Status) Reported(field string) bool { return s.seen[field] }

// Fill sets a field the status file left out, as the kernel reported it another way.
func (s *Status) Fill(field string, value uint64) {
	switch field {
	case "CapAmb":
		s.CapAmb = value
	case "NoNewPrivs":
		s.NoNewPrivs = int(value)
	default:
		return
	}
	s.seen[field] = true
}

// TaskEnded tells whether err, from opening or reading a task's status, means the task ended
// while it was read: its files are gone, or the read of one already open finds no process.
func TaskEnded(err error) bool {
	return errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH)
}

// Check names every way the status falls short of no capability in any set and NoNewPrivs 1,
// and, when uid is not -1, of being uid:gid with no supplementary group.
func (s Status) Check(uid, gid int) []string {
	var short []string
	for _, f := range unreported {
		if !s.seen[f] {
			short = append(short, f+" is not reported")
		}
	}
	for _, f := range []struct {
		name string
		v    uint64
	}{{"CapInh", s.CapInh}, {"CapPrm", s.CapPrm}, {"CapEff", s.CapEff}, {"CapBnd", s.CapBnd}, {"CapAmb", s.CapAmb}} {
		if f.v != 0 {
			short = append(short, fmt.Sprintf("%s is %016x", f.name, f.v))
		}
	}
	if s.NoNewPrivs != 1 {
		short = append(short, fmt.Sprintf("NoNewPrivs is %d", s.NoNewPrivs))
	}
	if uid >= 0 {
		for _, id := range s.UIDs {
			if id != uid {
				short = append(short, fmt.Sprintf("a uid is %d, not %d", id, uid))
				break
			}
		}
		for _, id := range s.GIDs {
			if id != gid {
				short = append(short, fmt.Sprintf("a gid is %d, not %d", id, gid))
				break
			}
		}
		if len(s.Groups) > 0 {
			short = append(short, fmt.Sprintf("supplementary groups %v remain", s.Groups))
		}
	}
	return short
}
