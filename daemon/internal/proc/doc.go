// Package proc is the process table: programs started under their guards that outlive the
// call, their output kept in rings under one budget, read by offset, written, signalled,
// listed and waited for.
package proc
