package ptree

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Stat is what the daemon needs of /proc/<pid>/stat.
type Stat struct {
	Pid, PPid, Pgrp, Session int
	State                    byte
}

// ParseStat reads one /proc/<pid>/stat. The command name sits in parentheses and may hold
// spaces and parentheses itself, so the fields are counted from its last ')'.
func ParseStat(r io.Reader) (Stat, error) {
	b, err := io.ReadAll(io.LimitReader(r, 4096))
	if err != nil {
		return Stat{}, err
	}
	open := bytes.IndexByte(b, '(')
	end := bytes.LastIndexByte(b, ')')
	if open < 1 || end < open {
		return Stat{}, fmt.Errorf("not a /proc stat line")
	}
	pid, err := strconv.Atoi(string(bytes.TrimSpace(b[:open])))
	if err != nil {
		return Stat{}, fmt.Errorf("not a /proc stat line: %v", err)
	}
	f := bytes.Fields(b[end+1:])
	if len(f) < 4 || len(f[0]) != 1 {
		return Stat{}, fmt.Errorf("not a /proc stat line")
	}
	s := Stat{Pid: pid, State: f[0][0]}
	for i, dst := range []*int{&s.PPid, &s.Pgrp, &s.Session} {
		if *dst, err = strconv.Atoi(string(f[i+1])); err != nil {
			return Stat{}, fmt.Errorf("not a /proc stat line: %v", err)
		}
	}
	return s, nil
}

// All reads every process's stat; one that ends while it is read is left out.
func All() []Stat {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(-1)
	out := make([]Stat, 0, len(names))
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		f, err := os.Open("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		s, err := ParseStat(f)
		f.Close()
		if err == nil {
			out = append(out, s)
		}
	}
	return out
}

// Descendants lists every process under pid (children, theirs, ...), from a snapshot.
func Descendants(all []Stat, pid int) []Stat {
	kids := map[int][]Stat{}
	for _, s := range all {
		kids[s.PPid] = append(kids[s.PPid], s)
	}
	var out []Stat
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, k := range kids[p] {
			out = append(out, k)
			queue = append(queue, k.Pid)
		}
	}
	return out
}

// Children lists pid's own children.
func Children(all []Stat, pid int) []Stat {
	var out []Stat
	for _, s := range all {
		if s.PPid == pid {
			out = append(out, s)
		}
	}
	return out
}
