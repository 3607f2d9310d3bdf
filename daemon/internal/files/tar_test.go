package files

import (
	"archive/tar"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"agentrun.dev/computerd/internal/rpc"
)

type tarEntry struct {
	name, body, link string
	typ              byte
	mode             int64
}

func makeTar(t testing.TB, entries ...tarEntry) []byte {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Mode: e.mode, Linkname: e.link, Size: int64(len(e.body))}
		if e.typ != tar.TypeReg {
			h.Size = 0
		}
		if h.Mode == 0 {
			h.Mode = 0o644
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if e.typ == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	tw.Close()
	return buf.Bytes()
}

func pullAll(t *testing.T, tr *Transfers, path string, chunk int) []byte {
	t.Helper()
	id, err := tr.PullBegin(bg, PathParams{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	for {
		r, err := tr.PullRead(bg, PullReadParams{ID: id.ID, MaxBytes: &chunk})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r.Data...)
		if r.EOF {
			break
		}
		if len(r.Data) != chunk {
			t.Fatalf("a read before the end returned %d bytes, want %d", len(r.Data), chunk)
		}
	}
	tr.PullEnd(bg, IDParams{ID: id.ID})
	tr.PullEnd(bg, IDParams{ID: id.ID}) // may be sent again
	return out
}

func pushAll(t *testing.T, tr *Transfers, dir string, data []byte) (int, error) {
	t.Helper()
	id, err := tr.PushBegin(bg, PathParams{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	for len(data) > 0 {
		n := min(len(data), 700)
		if _, err := tr.PushWrite(bg, PushWriteParams{ID: id.ID, Data: data[:n]}); err != nil {
			tr.PushEnd(bg, IDParams{ID: id.ID})
			return 0, err
		}
		data = data[n:]
	}
	r, err := tr.PushEnd(bg, IDParams{ID: id.ID})
	return r.Entries, err
}

func TestPullThenPushCopiesATree(t *testing.T) {
	src := t.TempDir()
	os.MkdirAll(filepath.Join(src, "sub/deeper"), 0o755)
	os.WriteFile(filepath.Join(src, "sub/deeper/f"), []byte(strings.Repeat("x", 3000)), 0o600)
	os.WriteFile(filepath.Join(src, "top"), []byte("top"), 0o755)
	os.Chmod(filepath.Join(src, "top"), 0o755)
	os.Symlink("sub/deeper/f", filepath.Join(src, "ln"))
	syscall.Mkfifo(filepath.Join(src, "fifo"), 0o644)
	os.Chmod(filepath.Join(src, "sub"), 0o500) // read-only: the push keeps owner access until the end

	tr := NewTransfers()
	defer tr.Close()
	archive := pullAll(t, tr, src, 1024)
	dst := filepath.Join(t.TempDir(), "made")
	n, err := pushAll(t, tr, dst, archive)
	if err != nil {
		t.Fatal(err)
	}
	if n != 5 { // ln, sub/, sub/deeper/, sub/deeper/f, top: the FIFO is left out
		t.Fatalf("%d entries pushed, want 5", n)
	}
	if b, _ := os.ReadFile(filepath.Join(dst, "sub/deeper/f")); len(b) != 3000 {
		t.Fatalf("the deep file has %d bytes", len(b))
	}
	if l, _ := os.Readlink(filepath.Join(dst, "ln")); l != "sub/deeper/f" {
		t.Fatalf("the link points at %q", l)
	}
	for p, mode := range map[string]os.FileMode{"top": 0o755, "sub": 0o500, "sub/deeper/f": 0o600} {
		if st, _ := os.Lstat(filepath.Join(dst, p)); st.Mode().Perm() != mode {
			t.Errorf("%s is %v, want %v", p, st.Mode().Perm(), mode)
		}
	}
	if _, err := os.Lstat(filepath.Join(dst, "fifo")); !os.IsNotExist(err) {
		t.Fatal("a FIFO was archived")
	}
	os.Chmod(filepath.Join(src, "sub"), 0o755)
	os.Chmod(filepath.Join(dst, "sub"), 0o755)

	// A file is one entry, its name.
	r := tar.NewReader(bytes.NewReader(pullAll(t, tr, filepath.Join(src, "top"), MaxChunk)))
	h, err := r.Next()
	if err != nil || h.Name != "top" || h.Size != 3 {
		t.Fatalf("a file's pull: %+v %v", h, err)
	}
}

func TestPushRefusesEntriesThatLeaveItsDirectory(t *testing.T) {
	outside := t.TempDir()
	for _, tc := range []struct {
		name    string
		archive []byte
		kind    rpc.Kind
		kept    string
	}{
		{"absolute", makeTar(t, tarEntry{name: "ok", typ: tar.TypeReg, body: "1"}, tarEntry{name: outside + "/abs", typ: tar.TypeReg}), rpc.Denied, "ok"},
		{"dotdot", makeTar(t, tarEntry{name: "a/../../escape", typ: tar.TypeReg}), rpc.Denied, ""},
		{"symlink on the way", makeTar(t, tarEntry{name: "ln", typ: tar.TypeSymlink, link: outside}, tarEntry{name: "ln/escape", typ: tar.TypeReg}), rpc.Denied, "ln"},
		{"file on the way", makeTar(t, tarEntry{name: "f", typ: tar.TypeReg}, tarEntry{name: "f/x", typ: tar.TypeReg}), rpc.Denied, "f"},
		{"hard link", makeTar(t, tarEntry{name: "h", typ: tar.TypeLink, link: "x"}), rpc.Invalid, ""},
		{"fifo", makeTar(t, tarEntry{name: "p", typ: tar.TypeFifo}), rpc.Invalid, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := t.TempDir()
			tr := NewTransfers()
			defer tr.Close()
			_, err := pushAll(t, tr, dst, tc.archive)
			if k := kindOf(t, err); k != tc.kind {
				t.Fatalf("%v, want %s", err, tc.kind)
			}
			if tc.kept != "" {
				if _, err := os.Lstat(filepath.Join(dst, tc.kept)); err != nil {
					t.Fatalf("the entry before the refusal is gone: %v", err)
				}
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Fatalf("the push wrote outside its directory: %v", ents)
			}
			ents, _ := os.ReadDir(dst)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), ".computerd-push-") {
					t.Fatalf("a half file was left: %s", e.Name())
				}
			}
		})
	}
}

func TestPushReplacesASymlinkAtTheEntrysNameNeverFollowsIt(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "victim")
	os.WriteFile(outside, []byte("keep"), 0o644)
	dst := t.TempDir()
	os.Symlink(outside, filepath.Join(dst, "f"))
	os.Symlink(filepath.Dir(outside), filepath.Join(dst, "d"))
	tr := NewTransfers()
	defer tr.Close()
	if _, err := pushAll(t, tr, dst, makeTar(t, tarEntry{name: "f", typ: tar.TypeReg, body: "new"}, tarEntry{name: "d/", typ: tar.TypeDir, mode: 0o755})); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(outside); string(b) != "keep" {
		t.Fatal("the push wrote through a symlink")
	}
	if st, _ := os.Lstat(filepath.Join(dst, "f")); !st.Mode().IsRegular() {
		t.Fatal("the symlink was not replaced by the file")
	}
	if st, _ := os.Lstat(filepath.Join(dst, "d")); !st.IsDir() {
		t.Fatal("the symlink was not replaced by the directory")
	}
}

func TestAConnectionHoldsAtMostEightPullsAndPushes(t *testing.T) {
	dir := t.TempDir()
	tr := NewTransfers()
	for i := 0; i < MaxOpen; i++ {
		if _, err := tr.PullBegin(bg, PathParams{Path: dir}); err != nil {
			t.Fatal(err)
		}
		if _, err := tr.PushBegin(bg, PathParams{Path: filepath.Join(dir, "p")}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.PullBegin(bg, PathParams{Path: dir}); kindOf(t, err) != rpc.Limit {
		t.Fatalf("a ninth pull: %v", err)
	}
	if _, err := tr.PushBegin(bg, PathParams{Path: dir}); kindOf(t, err) != rpc.Limit {
		t.Fatalf("a ninth push: %v", err)
	}
	tr.Close()
	if _, err := tr.PullBegin(bg, PathParams{Path: dir}); err != nil {
		t.Fatalf("after the connection's end the pulls were not freed: %v", err)
	}
	tr.Close()
	if _, err := tr.PullRead(bg, PullReadParams{ID: "pull1"}); kindOf(t, err) != rpc.NotFound {
		t.Fatalf("a pull ended with the connection: %v", err)
	}
}

// FuzzExtract: whatever the archive, a push never writes outside its directory, even with a
// symlink to the outside planted in it.
func FuzzExtract(f *testing.F) {
	f.Add(makeTar(f, tarEntry{name: "a/b", typ: tar.TypeReg, body: "x"}))
	f.Fuzz(func(t *testing.T, data []byte) {
		outer := t.TempDir()
		root := filepath.Join(outer, "root")
		outside := filepath.Join(outer, "outside")
		os.Mkdir(root, 0o755)
		os.Mkdir(outside, 0o755)
		os.Symlink(outside, filepath.Join(root, "evil"))
		os.Symlink("../outside", filepath.Join(root, "rel"))
		fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
		if err != nil {
			t.Fatal(err)
		}
		Extract(fd, io.LimitReader(bytes.NewReader(data), 1<<20))
		syscall.Close(fd)
		if ents, _ := os.ReadDir(outside); len(ents) != 0 {
			t.Fatalf("the push wrote outside its directory: %v", ents)
		}
		ents, _ := os.ReadDir(outer)
		if len(ents) != 2 {
			t.Fatalf("the push made %v beside its directory", ents)
		}
		filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if d != nil && d.IsDir() {
				os.Chmod(p, 0o755) // so the test's cleanup can remove it
			}
			return nil
		})
	})
}
