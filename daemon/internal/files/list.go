package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"

	"agentrun.dev/computerd/internal/rpc"
)

// List bounds: depth 1 (default) to 16; at most 1000 entries and 768 KiB a reply.
const (
	MaxDepth       = 16
	MaxListEntries = 1000
	MaxListBytes   = 768 << 10
)

// ListParams of files.list.
type ListParams struct {
	Path   string `json:"path"`
	Depth  *int   `json:"depth,omitempty"`
	Offset *int   `json:"offset,omitempty"`
}

// Entry is one listed path with its stat fields.
type Entry struct {
	Path string `json:"path"`
	Stat
}

// ListResult: when truncated, list again with offset plus the entries read.
type ListResult struct {
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated"`
}

// List serves files.list: walk order, by name, a directory before its contents; symlinks are
// listed, never entered.
func List(ctx context.Context, p ListParams) (ListResult, error) {
	path, err := clean("path", p.Path)
	if err != nil {
		return ListResult{}, err
	}
	depth, offset := 1, 0
	if p.Depth != nil {
		depth = *p.Depth
	}
	if p.Offset != nil {
		offset = *p.Offset
	}
	if depth < 1 || depth > MaxDepth {
		return ListResult{}, rpc.Errorf(rpc.Invalid, "depth %d is outside 1 to %d", depth, MaxDepth)
	}
	if offset < 0 {
		return ListResult{}, rpc.Errorf(rpc.Invalid, "offset must not be negative")
	}
	root, err := statOf(path, true)
	if err != nil {
		return ListResult{}, err
	}
	if root.Type != "dir" {
		return ListResult{}, rpc.Errorf(rpc.NotDir, "%s is not a directory", path)
	}
	res := ListResult{Entries: []Entry{}}
	seen, bytes := 0, 0
	var walk func(dir string, level int) bool
	walk = func(dir string, level int) bool {
		if ctx.Err() != nil {
			return false
		}
		names, err := readNames(dir)
		if err != nil {
			return true // an unreadable directory is listed without its contents
		}
		for _, n := range names {
			p := filepath.Join(dir, n)
			st, err := statOf(p, false)
			if err != nil {
				continue // gone while listed
			}
			if seen >= offset {
				e := Entry{Path: p, Stat: st}
				b, _ := json.Marshal(e)
				if len(res.Entries) == MaxListEntries || bytes+len(b)+1 > MaxListBytes {
					res.Truncated = true
					return false
				}
				bytes += len(b) + 1
				res.Entries = append(res.Entries, e)
			}
			seen++
			if st.Type == "dir" && level < depth {
				if !walk(p, level+1) {
					return false
				}
			}
		}
		return true
	}
	walk(path, 1)
	if ctx.Err() != nil {
		return ListResult{}, ctx.Err()
	}
	return res, nil
}

func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	sort.Strings(names)
	return names, err
}
