package files

import "agentrun.dev/computerd/internal/rpc"

// ReadParams of files.read.
type ReadParams struct {
	Path   string `json:"path"`
	Offset *int64 `json:"offset,omitempty"`
	Length *int64 `json:"length,omitempty"`
}

// ReadResult: size is the file's whole size.
type ReadResult struct {
	Data rpc.Bytes `json:"data"`
	EOF  bool      `json:"eof"`
	Size int64     `json:"size"`
}

// WriteParams of files.write.
type WriteParams struct {
	Path    string    `json:"path"`
	Data    rpc.Bytes `json:"data"`
	Offset  *int64    `json:"offset,omitempty"`
	Append  bool      `json:"append,omitempty"`
	Mode    *uint32   `json:"mode,omitempty"`
	Parents bool      `json:"parents,omitempty"`
}

// WriteResult: the file's size after the write.
type WriteResult struct {
	Size int64 `json:"size"`
}

// StatParams of files.stat.
type StatParams struct {
	Path   string `json:"path"`
	Follow bool   `json:"follow,omitempty"`
}

// Stat is what files.stat and files.list report of one entry.
type Stat struct {
	Type    string `json:"type"` // file, dir, symlink or other
	Size    int64  `json:"size"`
	Mode    uint32 `json:"mode"` // permission bits (and setuid, setgid, sticky)
	MtimeMs int64  `json:"mtimeMs"`
	UID     int    `json:"uid"`
	GID     int    `json:"gid"`
	Target  string `json:"target,omitempty"` // a symlink's
}

// ListParams of files.list.
type ListParams struct {
	Path   string `json:"path"`
	Depth  *int   `json:"depth,omitempty"`
	Offset *int   `json:"offset,omitempty"`
}

// Entry is one listed path with its stat fields.
type Entry struct {
	Path    string `json:"path"`
	Type    string `json:"type"`
	Size    int64  `json:"size"`
	Mode    uint32 `json:"mode"`
	MtimeMs int64  `json:"mtimeMs"`
	UID     int    `json:"uid"`
	GID     int    `json:"gid"`
	Target  string `json:"target,omitempty"`
}

// ListResult: when truncated, list again with offset plus the entries read.
type ListResult struct {
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated"`
}

// MkdirParams of files.mkdir.
type MkdirParams struct {
	Path    string  `json:"path"`
	Parents bool    `json:"parents,omitempty"`
	Mode    *uint32 `json:"mode,omitempty"`
}

// MoveParams of files.move.
type MoveParams struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Overwrite bool   `json:"overwrite,omitempty"`
}

// RemoveParams of files.remove.
type RemoveParams struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive,omitempty"`
}

// Empty is the result of a call that answers nothing but success.
type Empty struct{}

// PathParams names one path (tar.pull.begin, tar.push.begin).
type PathParams struct {
	Path string `json:"path"`
}

// IDResult is a new pull's or push's id.
type IDResult struct {
	ID string `json:"id"`
}

// IDParams names a pull or push.
type IDParams struct {
	ID string `json:"id"`
}

// PullReadParams of tar.pull.read.
type PullReadParams struct {
	ID       string `json:"id"`
	MaxBytes *int   `json:"maxBytes,omitempty"`
}

// PullReadResult: the next bytes of the archive; fewer than maxBytes only at its end.
type PullReadResult struct {
	Data rpc.Bytes `json:"data"`
	EOF  bool      `json:"eof"`
}

// PushWriteParams of tar.push.write.
type PushWriteParams struct {
	ID   string    `json:"id"`
	Data rpc.Bytes `json:"data"`
}

// PushEndResult: how many entries the push extracted.
type PushEndResult struct {
	Entries int `json:"entries"`
}
