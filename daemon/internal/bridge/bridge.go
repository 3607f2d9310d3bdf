package bridge

import (
	"fmt"
	"io"
	"net"
	"time"
)

// Wait is how long the bridge tries to reach a computer that has just started.
const Wait = 3 * time.Second

// Run joins in and out to the daemon at socket until the daemon closes the connection. The end
// of in is passed on as a half-close, so replies still in flight arrive. It returns the
// process's exit code, and says why on errOut when there is no daemon.
func Run(socket string, in io.Reader, out, errOut io.Writer) int {
	var c *net.UnixConn
	var err error
	for start := time.Now(); ; {
		c, err = net.DialUnix("unix", nil, &net.UnixAddr{Name: socket, Net: "unix"})
		if err == nil || time.Since(start) >= Wait {
			break
		}
		time.Sleep(25 * time.Millisecond)
	}
	if err != nil {
		fmt.Fprintf(errOut, "computerd stdio: no daemon answers on %s after %s (%v): is computerd init running in this computer?\n", socket, Wait, err)
		return 1
	}
	defer c.Close()
	growPipe(in)
	growPipe(out)
	go func() {
		// Requests in 256 KiB reads, not io.Copy's 32 KiB: a chunk's line is ~700 KB. (The
		// wrappers keep io.CopyBuffer from handing the copy to WriteTo/ReadFrom, which for a
		// pipe into a socket fall back to their own small buffer.) Replies below go by splice.
		io.CopyBuffer(struct{ io.Writer }{c}, struct{ io.Reader }{in}, make([]byte, 256<<10))
		c.CloseWrite()
	}()
	if _, err := io.Copy(out, c); err != nil {
		fmt.Fprintf(errOut, "computerd stdio: %v\n", err)
		return 1
	}
	return 0
}
