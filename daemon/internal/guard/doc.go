// Package guard runs programs under a guard: `computerd guard`, a child subreaper that starts
// each program in a process group of its own, ends whatever the program leaves under it, and
// reports the program's start and end to the daemon over a pipe. A guard takes a run's spec and
// stdio over its control socket, and waits for the next once its run is over, so the daemon
// keeps one waiting and exec.run's latency holds no start of a guard.
package guard
