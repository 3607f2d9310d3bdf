// Package pty opens pseudo-terminals and asks the terminal driver about them: size,
// foreground process group and session, each ioctl wrapped once.
package pty
