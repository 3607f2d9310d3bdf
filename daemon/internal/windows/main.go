package windows

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"agentrun.dev/computerd/internal/x11"
)

// Usage is the subcommand's line of help.
const Usage = "computerd window --title <part> [--raise]   the display's windows whose title holds part, as JSON lines; --raise raises the first"

// Main runs the subcommand: exit 0 with each window found, 1 when none is, 2 on a usage error,
// 3 when the display cannot be reached.
func Main(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("window", flag.ContinueOnError)
	fs.SetOutput(stderr)
	title := fs.String("title", "", "the part of the title to find")
	raise := fs.Bool("raise", false, "raise the first window found and give it the keyboard")
	if err := fs.Parse(args); err != nil || *title == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage:", Usage)
		return 2
	}
	c, err := connect()
	if err != nil {
		fmt.Fprintln(stderr, "computerd window: the display cannot be reached:", err)
		return 3
	}
	defer c.Close()
	found, err := Titled(c, *title)
	if err != nil {
		fmt.Fprintln(stderr, "computerd window:", err)
		return 3
	}
	if len(found) == 0 {
		fmt.Fprintf(stderr, "computerd window: no window's title holds %q\n", *title)
		return 1
	}
	if *raise {
		if err := Raise(c, found[0].ID); err != nil {
			fmt.Fprintln(stderr, "computerd window: raising it failed:", err)
			return 3
		}
	}
	enc := json.NewEncoder(stdout)
	for _, w := range found {
		enc.Encode(w)
	}
	return 0
}

// connect dials DISPLAY (default :0) with the cookie XAUTHORITY (or ~/.Xauthority) holds for it.
func connect() (*x11.Conn, error) {
	display := os.Getenv("DISPLAY")
	if display == "" {
		display = ":0"
	}
	addr, err := x11.ParseDisplay(display)
	if err != nil {
		return nil, err
	}
	cookie, err := x11.ReadCookie(x11.AuthPath(os.Getenv("XAUTHORITY"), os.Getenv("HOME")), addr.Number)
	if err != nil {
		return nil, err
	}
	return x11.Dial(addr, cookie)
}
