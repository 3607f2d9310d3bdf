package files

import (
	"path/filepath"

	"agentrun.dev/computerd/internal/rpc"
)

// Empty is the result of a call that answers nothing but success.
type Empty struct{}

// clean checks a caller's path: absolute, then cleaned.
func clean(name, p string) (string, error) {
	if p == "" {
		return "", rpc.Errorf(rpc.Invalid, "%s is required: give an absolute path", name)
	}
	if !filepath.IsAbs(p) {
		return "", rpc.Errorf(rpc.Invalid, "%s %q is relative: give an absolute path", name, p)
	}
	return filepath.Clean(p), nil
}
