package files

import (
	"archive/tar"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"sync"
	"syscall"

	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/safepath"
	"agentrun.dev/computerd/internal/sysx"
)

// PushWriteParams of tar.push.write.
type PushWriteParams struct {
	ID   string    `json:"id"`
	Data rpc.Bytes `json:"data"`
}

// PushEndResult: how many entries the push extracted.
type PushEndResult struct {
	Entries int `json:"entries"`
}

// push extracts an archive as its bytes come, every write reached from the directory's one
// descriptor a name at a time, never through a link.
type push struct {
	mu   sync.Mutex // writes take turns
	in   *handoff
	done chan struct{}
	x    *extractor
	err  error
}

// handoff carries a push's chunks to its extractor with one chunk held ahead: a write is
// answered once its bytes are queued, so the next chunk crosses the connection while this one
// is extracted, and a push holds at most two chunks (the one read and the one queued). A refusal
// in a chunk already answered comes with the next write, or the end.
type handoff struct {
	queue chan []byte
	cur   []byte
}

func newHandoff() *handoff { return &handoff{queue: make(chan []byte, 1)} }

func (h *handoff) Read(p []byte) (int, error) {
	for len(h.cur) == 0 {
		b, ok := <-h.queue
		if !ok {
			return 0, io.EOF
		}
		h.cur = b
	}
	n := copy(p, h.cur)
	h.cur = h.cur[n:]
	return n, nil
}

func beginPush(path string) (*push, error) {
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, err
	}
	root, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	p := &push{in: newHandoff(), done: make(chan struct{}), x: &extractor{root: root}}
	go func() {
		p.err = p.x.run(p.in)
		p.x.finish()
		syscall.Close(root)
		if p.err != nil {
			close(p.done)
			return
		}
		// After the end-of-archive blocks, the rest (padding) is read and dropped; done once
		// the push's end closed the queue.
		io.Copy(io.Discard, p.in)
		close(p.done)
	}()
	return p, nil
}

// write queues data (the caller's own: it is kept) once the chunk before it is being extracted.
func (p *push) write(data []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
	default:
		select {
		case p.in.queue <- data:
			return nil
		case <-p.done:
		}
	}
	if p.err != nil {
		return p.err
	}
	return rpc.Errorf(rpc.Invalid, "the push has ended")
}

func (p *push) end() (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.done:
	default:
		close(p.in.queue)
		<-p.done
	}
	return p.x.entries, p.err
}

// Extract writes the archive read from r under the directory root; the fuzz test's entry.
func Extract(root int, r io.Reader) (int, error) {
	x := &extractor{root: root}
	err := x.run(r)
	x.finish()
	return x.entries, err
}

type dirMode struct {
	parts []string
	mode  uint32
}

type extractor struct {
	root    int
	entries int
	dirs    []dirMode
}

func (x *extractor) run(r io.Reader) error {
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return rpc.Errorf(rpc.Invalid, "the archive is not a valid tar past entry %d: %v", x.entries, err)
		}
		if err := x.entry(h, tr); err != nil {
			return err
		}
	}
}

// split checks an entry's name: absolute or with a .. part is denied.
func split(name string) ([]string, error) {
	if strings.HasPrefix(name, "/") {
		return nil, rpc.Errorf(rpc.Denied, "entry %q is absolute: a push writes only under its directory", name)
	}
	var parts []string
	for _, p := range strings.Split(name, "/") {
		switch p {
		case "", ".":
			continue
		case "..":
			return nil, rpc.Errorf(rpc.Denied, "entry %q has a .. part: a push writes only under its directory", name)
		}
		if strings.IndexByte(p, 0) >= 0 {
			return nil, rpc.Errorf(rpc.Invalid, "entry %q holds a NUL byte", name)
		}
		parts = append(parts, p)
	}
	return parts, nil
}

// parent opens the directory an entry goes in, making what is missing (owner-only until the
// end), and refuses a symlink or a file on the way.
func (x *extractor) parent(name string, parts []string) (int, error) {
	fd, err := syscall.Dup(x.root)
	if err != nil {
		return -1, err
	}
	for _, p := range parts {
		next, err := safepath.EnterDir(fd, p, true, 0o700)
		syscall.Close(fd)
		if errors.Is(err, safepath.ErrLink) {
			return -1, rpc.Errorf(rpc.Denied, "entry %q has a symlink on its way (%s): a push never goes through one", name, p)
		}
		if errors.Is(err, syscall.ENOTDIR) {
			return -1, rpc.Errorf(rpc.Denied, "entry %q has a file on its way (%s)", name, p)
		}
		if err != nil {
			return -1, fmt.Errorf("entry %q: %w", name, err)
		}
		fd = next
	}
	return fd, nil
}

func tmpName() string { return fmt.Sprintf(".computerd-push-%016x", rand.Uint64()) }

func (x *extractor) entry(h *tar.Header, body io.Reader) error {
	parts, err := split(h.Name)
	if err != nil {
		return err
	}
	switch h.Typeflag {
	case tar.TypeReg, tar.TypeRegA, tar.TypeDir, tar.TypeSymlink:
	case tar.TypeLink:
		return rpc.Errorf(rpc.Invalid, "entry %q is a hard link, which a push does not make", h.Name)
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		return rpc.Errorf(rpc.Invalid, "entry %q is a device or a pipe, which a push does not make", h.Name)
	default:
		return rpc.Errorf(rpc.Invalid, "entry %q has tar type %q, which a push does not make", h.Name, h.Typeflag)
	}
	if len(parts) == 0 {
		if h.Typeflag == tar.TypeDir {
			return nil // the push's own directory
		}
		return rpc.Errorf(rpc.Invalid, "entry %q has no name", h.Name)
	}
	dir, err := x.parent(h.Name, parts[:len(parts)-1])
	if err != nil {
		return err
	}
	defer syscall.Close(dir)
	base := parts[len(parts)-1]
	mode := uint32(h.Mode) & 0o7777
	switch h.Typeflag {
	case tar.TypeDir:
		err = x.dir(dir, base, parts, mode)
	case tar.TypeSymlink:
		err = x.symlink(dir, base, h.Linkname)
	default:
		err = x.file(dir, base, mode, body)
	}
	if err != nil {
		return fmt.Errorf("entry %q: %w", h.Name, err)
	}
	x.entries++
	return nil
}

func (x *extractor) dir(dir int, base string, parts []string, mode uint32) error {
	err := syscall.Mkdirat(dir, base, 0o700)
	if errors.Is(err, syscall.EEXIST) && safepath.IsLink(dir, base) {
		// A symlink at the entry's own name is replaced, never followed.
		if err := syscall.Unlinkat(dir, base); err != nil {
			return err
		}
		err = syscall.Mkdirat(dir, base, 0o700)
	}
	if err != nil && !errors.Is(err, syscall.EEXIST) {
		return err
	}
	fd, err := safepath.EnterDir(dir, base, false, 0)
	if err != nil {
		return rpc.Errorf(rpc.Denied, "%s is there and is not a directory", base)
	}
	defer syscall.Close(fd)
	// Owner access until the archive ends, so entries under it can be written.
	var st syscall.Stat_t
	if syscall.Fstat(fd, &st) == nil && st.Mode&0o700 != 0o700 {
		syscall.Fchmod(fd, (st.Mode&0o7777)|0o700)
	}
	x.dirs = append(x.dirs, dirMode{parts: append([]string(nil), parts...), mode: mode})
	return nil
}

// file is written beside its target and renamed into place: no half file is ever at its name.
func (x *extractor) file(dir int, base string, mode uint32, body io.Reader) error {
	tmp := tmpName()
	fd, err := syscall.Openat(dir, tmp, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	f := os.NewFile(uintptr(fd), tmp)
	_, err = io.Copy(f, body)
	if err == nil {
		err = f.Chmod(fileMode(mode))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syscall.Renameat(dir, tmp, dir, base)
	}
	if err != nil {
		syscall.Unlinkat(dir, tmp)
		if errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.EEXIST) || errors.Is(err, syscall.ENOTEMPTY) {
			return rpc.Errorf(rpc.IsDir, "%s is a directory", base)
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return rpc.Errorf(rpc.Invalid, "the archive ended inside %s", base)
		}
	}
	return err
}

func (x *extractor) symlink(dir int, base, target string) error {
	tmp := tmpName()
	if err := sysx.Symlinkat(target, dir, tmp); err != nil {
		return err
	}
	if err := syscall.Renameat(dir, tmp, dir, base); err != nil {
		syscall.Unlinkat(dir, tmp)
		if errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return rpc.Errorf(rpc.IsDir, "%s is a directory", base)
		}
		return err
	}
	return nil
}

// finish gives each directory entry its mode, deepest first, reached again without links.
func (x *extractor) finish() {
	sort.SliceStable(x.dirs, func(i, j int) bool { return len(x.dirs[i].parts) > len(x.dirs[j].parts) })
	for _, d := range x.dirs {
		fd, err := syscall.Dup(x.root)
		if err != nil {
			return
		}
		for _, p := range d.parts {
			next, err := safepath.EnterDir(fd, p, false, 0)
			syscall.Close(fd)
			fd = next
			if err != nil {
				break
			}
		}
		if fd >= 0 {
			syscall.Fchmod(fd, d.mode)
			syscall.Close(fd)
		}
	}
}
