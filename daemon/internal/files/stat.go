package files

import (
	"context"
	"fmt"
	"os"
	"syscall"
)

// StatParams of files.stat.
type StatParams struct {
	Path   string `json:"path"`
	Follow bool   `json:"follow,omitempty"`
}

// Stat is what files.stat reports of one path.
type Stat struct {
	Type    string `json:"type"` // file, dir, symlink or other
	Size    int64  `json:"size"`
	Mode    uint32 `json:"mode"` // permission bits with setuid, setgid and sticky
	MtimeMs int64  `json:"mtimeMs"`
	UID     int    `json:"uid"`
	GID     int    `json:"gid"`
	Target  string `json:"target,omitempty"` // a symlink's
}

// StatPath serves files.stat: a symlink is reported as one unless follow.
func StatPath(_ context.Context, p StatParams) (Stat, error) {
	path, err := clean("path", p.Path)
	if err != nil {
		return Stat{}, err
	}
	return statOf(path, p.Follow)
}

func statOf(path string, follow bool) (Stat, error) {
	var st syscall.Stat_t
	var err error
	if follow {
		err = syscall.Stat(path, &st)
	} else {
		err = syscall.Lstat(path, &st)
	}
	if err != nil {
		return Stat{}, fmt.Errorf("%s: %w", path, err)
	}
	s := fromSys(&st)
	if s.Type == "symlink" {
		s.Target, _ = os.Readlink(path)
	}
	return s, nil
}

func fromSys(st *syscall.Stat_t) Stat {
	s := Stat{
		Size:    st.Size,
		Mode:    st.Mode & 0o7777,
		MtimeMs: st.Mtim.Sec*1000 + st.Mtim.Nsec/1e6,
		UID:     int(st.Uid),
		GID:     int(st.Gid),
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFREG:
		s.Type = "file"
	case syscall.S_IFDIR:
		s.Type = "dir"
	case syscall.S_IFLNK:
		s.Type = "symlink"
	default:
		s.Type = "other"
	}
	return s
}
