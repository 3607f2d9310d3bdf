// Package runs holds every guard the daemon started, for init's shutdown: it refuses new
// programs once the computer is shutting down, waits for starts under way, stops every guard
// and kills what is left.
package runs
