package files

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/sysx"
)

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

// pull writes its archive into a pipe only as it is read, so it holds at most one read.
type pull struct {
	mu   sync.Mutex
	r    *io.PipeReader
	done bool
}

// beginPull opens path and starts its archive: a file is one entry, its name; a directory's
// entries are relative to it.
func beginPull(path string) (*pull, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	kind := st.Mode & syscall.S_IFMT
	if kind != syscall.S_IFDIR && kind != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, rpc.Errorf(rpc.Invalid, "%s is a FIFO, socket or device: a pull takes a file or a directory", path)
	}
	r, w := io.Pipe()
	go func() {
		tw := tar.NewWriter(w)
		var err error
		if kind == syscall.S_IFDIR {
			err = archiveDir(tw, fd, "")
		} else {
			err = archiveFile(tw, fd, &st, filepath.Base(path))
		}
		syscall.Close(fd)
		if err == nil {
			err = tw.Close()
		}
		w.CloseWithError(err)
	}()
	return &pull{r: r}, nil
}

func header(st *syscall.Stat_t, name string) *tar.Header {
	return &tar.Header{
		Name:    name,
		Mode:    int64(st.Mode & 0o7777),
		Uid:     int(st.Uid),
		Gid:     int(st.Gid),
		ModTime: time.Unix(st.Mtim.Sec, st.Mtim.Nsec),
		Format:  tar.FormatPAX,
	}
}

// archiveFile writes a file's header from its descriptor's fstat and exactly that many bytes.
func archiveFile(tw *tar.Writer, fd int, st *syscall.Stat_t, name string) error {
	h := header(st, name)
	h.Typeflag = tar.TypeReg
	h.Size = st.Size
	if err := tw.WriteHeader(h); err != nil {
		return err
	}
	n, err := io.Copy(tw, io.LimitReader(fdReader(fd), st.Size))
	if err != nil {
		return err
	}
	// It shrank while read: the header promised its size, so the rest is zeros.
	_, err = io.CopyN(tw, zeros{}, st.Size-n)
	return err
}

// fdReader reads a descriptor its owner closes.
type fdReader int

func (f fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(f), p)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, err
		}
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// archiveDir writes every entry under the directory dirfd, by name, each reached from its
// directory's descriptor without following a link. Sockets, devices and pipes are left out,
// and so is a file that became a symlink.
func archiveDir(tw *tar.Writer, dirfd int, prefix string) error {
	dup, err := syscall.Dup(dirfd)
	if err != nil {
		return err
	}
	d := os.NewFile(uintptr(dup), prefix)
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, n := range names {
		var st syscall.Stat_t
		if err := sysx.Lstatat(dirfd, n, &st); err != nil {
			continue // gone
		}
		name := prefix + n
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFLNK:
			target, err := sysx.Readlinkat(dirfd, n)
			if err != nil {
				continue
			}
			h := header(&st, name)
			h.Typeflag, h.Linkname = tar.TypeSymlink, target
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
		case syscall.S_IFREG:
			fd, err := syscall.Openat(dirfd, n, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
			if err != nil {
				continue // became a symlink (ELOOP), or gone
			}
			var fst syscall.Stat_t
			if syscall.Fstat(fd, &fst) != nil || fst.Mode&syscall.S_IFMT != syscall.S_IFREG {
				syscall.Close(fd)
				continue
			}
			err = archiveFile(tw, fd, &fst, name)
			syscall.Close(fd)
			if err != nil {
				return err
			}
		case syscall.S_IFDIR:
			fd, err := syscall.Openat(dirfd, n, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
			if err != nil {
				continue
			}
			var fst syscall.Stat_t
			if err := syscall.Fstat(fd, &fst); err != nil {
				syscall.Close(fd)
				continue
			}
			h := header(&fst, name+"/")
			h.Typeflag = tar.TypeDir
			if err := tw.WriteHeader(h); err != nil {
				syscall.Close(fd)
				return err
			}
			err = archiveDir(tw, fd, name+"/")
			syscall.Close(fd)
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// read returns the next max bytes of the archive, fewer only at its end.
func (p *pull) read(ctx context.Context, max int) (PullReadResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return PullReadResult{Data: rpc.Bytes{}, EOF: true}, nil
	}
	buf := make([]byte, max)
	n, err := io.ReadFull(p.r, buf)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		p.done = true
		return PullReadResult{Data: buf[:n], EOF: true}, nil
	}
	if err != nil {
		p.done = true
		return PullReadResult{}, fmt.Errorf("the pull failed: %w", err)
	}
	return PullReadResult{Data: buf[:n]}, nil
}

func (p *pull) end() { p.r.Close() }
