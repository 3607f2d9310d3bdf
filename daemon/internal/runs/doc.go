// Package runs holds every guard the daemon started: the one that waits for the next
// exec.run, and for init's shutdown, every run's: it refuses new programs once the computer is
// shutting down, waits for starts under way, stops every guard and kills what is left.
package runs
