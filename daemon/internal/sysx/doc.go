// Package sysx holds the *at system calls the syscall package leaves out (renameat2,
// symlinkat, readlinkat, linkat, fstatat), each wrapped once.
package sysx
