// Package sums is `computerd sums`: each named file's permission bits and sha256, one line a
// path, the library's read-back of the files it loaded into a computer. It runs as the computer's
// user, as any program does, so it needs no method on the wire; it is here rather than in the
// image's sha256sum because Go's sha256 uses the CPU's SHA instructions (several times coreutils'
// speed), and every computer has this binary where no image is sure to have a fast hasher.
package sums

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Usage is the subcommand's line of help.
const Usage = "computerd sums <path>...   for each path, \"<mode in octal> <sha256>\" when it is a regular file (never through a link at its name), else \"-\""

// Main prints a line for each path in order, relative ones from the working directory: exit 0
// whatever the files are, 2 on a usage error, 1 when stdout cannot be written.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage:", Usage)
		return 2
	}
	out := bufio.NewWriter(stdout)
	for _, path := range args {
		out.WriteString(Line(path))
		out.WriteByte('\n')
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintln(stderr, "computerd sums:", err)
		return 1
	}
	return 0
}

// Line is one path's line: "<mode> <sha256>" for a regular file, "-" for anything else (missing,
// a link, a directory, a FIFO, unreadable, or changed into one of those between open and read).
func Line(path string) string {
	// O_NOFOLLOW: a link at the name is not read; O_NONBLOCK: a FIFO never makes the open wait.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "-"
	}
	defer f.Close()
	// What was opened is what is judged: its own stat, never the name's again.
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		return "-"
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return "-"
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "-"
	}
	return fmt.Sprintf("%o %s", st.Mode&0o7777, hex.EncodeToString(h.Sum(nil)))
}
