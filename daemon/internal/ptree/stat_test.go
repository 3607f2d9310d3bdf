package ptree

import (
	"os"
	"strings"
	"testing"
)

func TestParseStatCountsFieldsFromTheLastParenthesis(t *testing.T) {
	s, err := ParseStat(strings.NewReader("42 (a) b (c)) S 7 42 40 0 -1 4194560"))
	if err != nil {
		t.Fatal(err)
	}
	if s != (Stat{Pid: 42, PPid: 7, Pgrp: 42, Session: 40, State: 'S'}) {
		t.Fatalf("got %+v", s)
	}
	for _, bad := range []string{"", "x (y) S", "12 (y)", "12 (y) S a b c"} {
		if _, err := ParseStat(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseStat(%q) took a bad line", bad)
		}
	}
}

func TestDescendantsWalksTheWholeTree(t *testing.T) {
	all := []Stat{{Pid: 2, PPid: 1}, {Pid: 3, PPid: 2}, {Pid: 4, PPid: 3}, {Pid: 5, PPid: 1}, {Pid: 6, PPid: 9}}
	var got []int
	for _, s := range Descendants(all, 2) {
		got = append(got, s.Pid)
	}
	if len(got) != 2 || got[0] != 3 || got[1] != 4 {
		t.Fatalf("descendants of 2: %v, want [3 4]", got)
	}
	found := false
	for _, s := range All() {
		if s.Pid == os.Getpid() {
			found = s.PPid == os.Getppid()
		}
	}
	if !found {
		t.Fatal("All() did not list this process with its parent")
	}
}
