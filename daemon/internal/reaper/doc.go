// Package reaper waits for the daemon's children. A guard's end is handed to whoever
// started it; in init mode every other child (an orphan handed to init) is reaped as well.
package reaper
