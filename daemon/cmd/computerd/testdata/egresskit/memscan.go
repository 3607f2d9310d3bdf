package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// memscan reads the memory of every process it may (each readable region /proc/<pid>/maps
// lists, through /proc/<pid>/mem), itself aside, and prints for each needle the pids whose
// memory holds it, then how many processes and bytes it read and which pids it could not. Each
// needle is given reversed, so it is in no memory but memscan's own (not the caller's, nor init's
// that carried the argv). "--pids <pid,pid,...>" first reads those alone (a computer's processes,
// scanned from the host):
//
//	needle <needle reversed, as given>: <pid> <pid> ...
//	read <n> processes, <bytes> bytes; unreadable: <pid> (<why>), ...
func memscan(reversed []string) {
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	if len(reversed) > 1 && reversed[0] == "--pids" {
		dirs = nil
		for _, pid := range strings.Split(reversed[1], ",") {
			dirs = append(dirs, "/proc/"+pid)
		}
		reversed = reversed[2:]
	}
	needles := make([]string, len(reversed))
	for i, r := range reversed {
		b := []byte(r)
		for a, z := 0, len(b)-1; a < z; a, z = a+1, z-1 {
			b[a], b[z] = b[z], b[a]
		}
		needles[i] = string(b)
	}
	self := os.Getpid()
	found := make([][]int, len(needles))
	var procs, total int
	var unreadable []string
	for _, dir := range dirs {
		pid, err := strconv.Atoi(filepath.Base(dir))
		if err != nil || pid == self {
			continue
		}
		mem, err := scanProcess(dir)
		if err != nil {
			unreadable = append(unreadable, fmt.Sprintf("%d (%v)", pid, err))
			continue
		}
		procs++
		total += len(mem)
		for i, n := range needles {
			if bytes.Contains(mem, []byte(n)) {
				found[i] = append(found[i], pid)
			}
		}
	}
	for i, r := range reversed {
		fmt.Printf("needle %s: %s\n", r, strings.Trim(fmt.Sprint(found[i]), "[]"))
	}
	fmt.Printf("read %d processes, %d bytes; unreadable: %s\n", procs, total, strings.Join(unreadable, ", "))
}

// scanProcess is a process's readable memory, its regions one after another (a region the kernel
// will not give, such as [vvar], skipped); an error when its maps or mem cannot be opened.
func scanProcess(dir string) ([]byte, error) {
	maps, err := os.Open(filepath.Join(dir, "maps"))
	if err != nil {
		return nil, err
	}
	defer maps.Close()
	mem, err := os.Open(filepath.Join(dir, "mem"))
	if err != nil {
		return nil, err
	}
	defer mem.Close()
	var out []byte
	lines := bufio.NewScanner(maps)
	for lines.Scan() {
		f := strings.Fields(lines.Text())
		if len(f) < 2 || !strings.HasPrefix(f[1], "r") {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start || int64(start) < 0 {
			continue
		}
		region := make([]byte, end-start)
		n, err := mem.ReadAt(region, int64(start))
		if err != nil && err != io.EOF && n == 0 {
			continue
		}
		out = append(out, region[:n]...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no region of %s could be read", dir)
	}
	return out, lines.Err()
}
