package windows

import (
	"errors"
	"strings"

	"agentrun.dev/computerd/internal/x11"
)

// Window is one window and its title.
type Window struct {
	ID    uint32 `json:"id"`
	Title string `json:"title"`
}

// Titled gives the windows whose title holds part, bottom-most first: the root's children and
// theirs (a window manager's frame holds the app's own window).
func Titled(c *x11.Conn, part string) ([]Window, error) {
	netName, err := c.InternAtom("_NET_WM_NAME", true)
	if err != nil {
		return nil, err
	}
	top, err := c.QueryTree(c.Setup.Screen.Root)
	if err != nil {
		return nil, err
	}
	var out []Window
	for _, w := range top {
		kids, err := c.QueryTree(w)
		if gone(err) {
			continue
		} else if err != nil {
			return nil, err
		}
		for _, id := range append([]uint32{w}, kids...) {
			title, err := titleOf(c, id, netName)
			if gone(err) {
				continue
			} else if err != nil {
				return nil, err
			}
			if title != "" && strings.Contains(title, part) {
				out = append(out, Window{ID: id, Title: title})
			}
		}
	}
	return out, nil
}

// titleOf reads _NET_WM_NAME (UTF-8, what toolkits set), else WM_NAME.
func titleOf(c *x11.Conn, w, netName uint32) (string, error) {
	if netName != 0 {
		v, err := c.GetProperty(w, netName)
		if err != nil || len(v) > 0 {
			return string(v), err
		}
	}
	v, err := c.GetProperty(w, x11.AtomWMName)
	return string(v), err
}

// gone: an X error for a request about a window, which a window destroyed meanwhile gives.
func gone(err error) bool {
	var e *x11.Error
	return errors.As(err, &e)
}

// Raise maps w, puts it above its siblings and gives it the keyboard.
func Raise(c *x11.Conn, w uint32) error {
	c.MapWindow(w)
	c.RaiseWindow(w)
	c.SetInputFocus(w)
	return c.Sync()
}
