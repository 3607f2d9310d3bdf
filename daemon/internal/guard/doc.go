// Package guard runs one program under its own guard: `computerd guard`, a child subreaper
// that starts the program in a process group of its own, ends whatever the program leaves
// under it, and reports the program's start and end to the daemon over a pipe.
package guard
