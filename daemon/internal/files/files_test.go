package files

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"agentrun.dev/computerd/internal/rpc"
)

var bg = context.Background()

func kindOf(t *testing.T, err error) rpc.Kind {
	t.Helper()
	if err == nil {
		t.Fatal("the call succeeded, want a refusal")
	}
	return rpc.KindOf(err)
}

func i64(v int64) *int64   { return &v }
func u32(v uint32) *uint32 { return &v }

func TestReadReturnsAChunkWithEOFAndSize(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("hello world"), 0o644)
	r, err := Read(bg, ReadParams{Path: p, Offset: i64(6), Length: i64(3)})
	if err != nil || string(r.Data) != "wor" || r.EOF || r.Size != 11 {
		t.Fatalf("read: %+v %v", r, err)
	}
	r, err = Read(bg, ReadParams{Path: p, Offset: i64(6)})
	if err != nil || string(r.Data) != "world" || !r.EOF {
		t.Fatalf("read to the end: %+v %v", r, err)
	}
	if k := kindOf(t, func() error { _, err := Read(bg, ReadParams{Path: p, Length: i64(MaxChunk + 1)}); return err }()); k != rpc.Limit {
		t.Fatalf("a length past 512 KiB: %s", k)
	}
	for _, tc := range []struct {
		path string
		kind rpc.Kind
	}{{"relative", rpc.Invalid}, {filepath.Join(dir, "missing"), rpc.NotFound}, {dir, rpc.IsDir}} {
		_, err := Read(bg, ReadParams{Path: tc.path})
		if k := kindOf(t, err); k != tc.kind {
			t.Errorf("read %s: %s, want %s", tc.path, k, tc.kind)
		}
	}
}

// A FIFO never makes a read or write wait: it is refused as invalid.
func TestReadAndWriteRefuseAFIFOAtOnce(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bg, ReadParams{Path: fifo}); kindOf(t, err) != rpc.Invalid {
		t.Fatalf("read of a FIFO: %v", err)
	}
	if _, err := Write(bg, WriteParams{Path: fifo, Data: []byte("x")}); kindOf(t, err) != rpc.Invalid {
		t.Fatalf("write to a FIFO: %v", err)
	}
	if _, err := Read(bg, ReadParams{Path: "/dev/null"}); kindOf(t, err) != rpc.Invalid {
		t.Fatalf("read of a device: %v", err)
	}
}

func TestWriteReplacesAppendsAndWritesAtAnOffset(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a", "b", "f")
	if _, err := Write(bg, WriteParams{Path: p, Data: []byte("x")}); kindOf(t, err) != rpc.NotFound {
		t.Fatalf("a write without parents into a missing directory: %v", err)
	}
	r, err := Write(bg, WriteParams{Path: p, Data: []byte("hello"), Parents: true})
	if err != nil || r.Size != 5 {
		t.Fatalf("write: %+v %v", r, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Fatalf("a new file is %v, want 0644", st.Mode().Perm())
	}
	Write(bg, WriteParams{Path: p, Data: []byte("!!"), Append: true})
	Write(bg, WriteParams{Path: p, Data: []byte("J"), Offset: i64(0)})
	if b, _ := os.ReadFile(p); string(b) != "Jello!!" {
		t.Fatalf("after append and offset: %q", b)
	}
	r, _ = Write(bg, WriteParams{Path: p, Data: []byte("new"), Mode: u32(0o600)})
	if b, _ := os.ReadFile(p); string(b) != "new" || r.Size != 3 {
		t.Fatalf("a replace: %q", b)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o600 {
		t.Fatalf("mode given: %v", st.Mode().Perm())
	}
	// Through a dangling symlink, the file is made at its target.
	link := filepath.Join(dir, "link")
	os.Symlink(filepath.Join(dir, "target"), link)
	if _, err := Write(bg, WriteParams{Path: link, Data: []byte("t")}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "target")); string(b) != "t" {
		t.Fatalf("the dangling link's target holds %q", b)
	}
	if _, err := Write(bg, WriteParams{Path: dir, Data: []byte("t")}); kindOf(t, err) != rpc.IsDir {
		t.Fatalf("a write to a directory: %v", err)
	}
}

func TestStatReportsALinkUnlessFollow(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f")
	os.WriteFile(f, []byte("abc"), 0o640)
	os.Chmod(f, 0o640)
	link := filepath.Join(dir, "l")
	os.Symlink("f", link)
	s, err := StatPath(bg, StatParams{Path: link})
	if err != nil || s.Type != "symlink" || s.Target != "f" {
		t.Fatalf("stat of a link: %+v %v", s, err)
	}
	s, err = StatPath(bg, StatParams{Path: link, Follow: true})
	if err != nil || s.Type != "file" || s.Size != 3 || s.Mode != 0o640 || s.UID != os.Getuid() || s.MtimeMs == 0 {
		t.Fatalf("stat following: %+v %v", s, err)
	}
	if s, _ := StatPath(bg, StatParams{Path: dir}); s.Type != "dir" {
		t.Fatalf("a directory's type: %s", s.Type)
	}
}

func TestListWalksByNameDirectoryFirstAndPages(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"b/x", "b/c/deep", "a"} {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), nil, 0o644)
	}
	os.Symlink(filepath.Join(dir, "b"), filepath.Join(dir, "ln"))
	var got []string
	depth := 16
	r, err := List(bg, ListParams{Path: dir, Depth: &depth})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range r.Entries {
		got = append(got, strings.TrimPrefix(e.Path, dir+"/")+":"+e.Type)
	}
	want := "a:file b:dir b/c:dir b/c/deep:file b/x:file ln:symlink"
	if strings.Join(got, " ") != want || r.Truncated {
		t.Fatalf("walk order %v, want %s", got, want)
	}
	r, _ = List(bg, ListParams{Path: dir})
	if len(r.Entries) != 3 {
		t.Fatalf("depth 1 lists %d entries, want 3", len(r.Entries))
	}
	many := filepath.Join(dir, "many")
	os.Mkdir(many, 0o755)
	for i := 0; i < 1005; i++ {
		os.WriteFile(filepath.Join(many, strings.Repeat("n", 1+i%3)+string(rune('a'+i%26))+string(rune('a'+i/26))), nil, 0o644)
	}
	r, _ = List(bg, ListParams{Path: many})
	off := len(r.Entries)
	if off != MaxListEntries || !r.Truncated {
		t.Fatalf("a page of %d entries, truncated %v", off, r.Truncated)
	}
	r, _ = List(bg, ListParams{Path: many, Offset: &off})
	if len(r.Entries) != 5 || r.Truncated {
		t.Fatalf("the next page: %d entries, truncated %v", len(r.Entries), r.Truncated)
	}
	bad := 17
	if _, err := List(bg, ListParams{Path: dir, Depth: &bad}); kindOf(t, err) != rpc.Invalid {
		t.Fatalf("depth 17: %v", err)
	}
	if _, err := List(bg, ListParams{Path: filepath.Join(dir, "a")}); kindOf(t, err) != rpc.NotDir {
		t.Fatalf("listing a file: %v", err)
	}
}

func TestMkdirExistsUnlessParents(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "d")
	if _, err := Mkdir(bg, MkdirParams{Path: p}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o755 {
		t.Fatalf("mode %v, want 0755", st.Mode().Perm())
	}
	if _, err := Mkdir(bg, MkdirParams{Path: p}); kindOf(t, err) != rpc.Exists {
		t.Fatalf("again: %v", err)
	}
	if _, err := Mkdir(bg, MkdirParams{Path: p, Parents: true}); err != nil {
		t.Fatalf("again with parents: %v", err)
	}
	if _, err := Mkdir(bg, MkdirParams{Path: filepath.Join(dir, "x/y/z"), Mode: u32(0o700), Parents: true}); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "x/y/z")); st.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v, want 0700", st.Mode().Perm())
	}
}

func TestMoveNeverReplacesWithoutOverwrite(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("A"), 0o644)
	os.WriteFile(b, []byte("B"), 0o644)
	if _, err := Move(bg, MoveParams{From: a, To: b}); kindOf(t, err) != rpc.Exists {
		t.Fatalf("a move onto a file: %v", err)
	}
	if x, _ := os.ReadFile(b); string(x) != "B" {
		t.Fatal("the refused move replaced b")
	}
	if _, err := Move(bg, MoveParams{From: a, To: b, Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if x, _ := os.ReadFile(b); string(x) != "A" {
		t.Fatal("overwrite did not replace b")
	}
	c := filepath.Join(dir, "c")
	if _, err := Move(bg, MoveParams{From: b, To: c}); err != nil {
		t.Fatal(err)
	}
	if _, err := Move(bg, MoveParams{From: b, To: c}); kindOf(t, err) != rpc.NotFound {
		t.Fatalf("moving what is gone: %v", err)
	}
	if _, err := Move(bg, MoveParams{From: c, To: "/dev/shm/computerd-move-test"}); err == nil {
		os.Remove("/dev/shm/computerd-move-test")
		t.Skip("/dev/shm is on the same filesystem here")
	} else if kindOf(t, err) != rpc.Unsupported {
		t.Fatalf("across filesystems: %v", err)
	}
}

func TestLinkThenUnlinkRefusesToReplace(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.WriteFile(a, []byte("A"), 0o644)
	os.WriteFile(b, []byte("B"), 0o644)
	if err := linkThenUnlink(a, b); !errors.Is(err, syscall.EEXIST) {
		t.Fatalf("the fallback onto a file: %v", err)
	}
	if err := linkThenUnlink(a, filepath.Join(dir, "c")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); !os.IsNotExist(err) {
		t.Fatal("the fallback left the source")
	}
	if kindOf(t, linkThenUnlink(dir, filepath.Join(t.TempDir(), "d"))) != rpc.Unsupported {
		t.Fatal("the fallback moved a directory")
	}
}

func TestRemove(t *testing.T) {
	dir := t.TempDir()
	d := filepath.Join(dir, "d")
	os.MkdirAll(filepath.Join(d, "e"), 0o755)
	if _, err := Remove(bg, RemoveParams{Path: d}); kindOf(t, err) != rpc.IsDir {
		t.Fatalf("a directory with entries: %v", err)
	}
	target := filepath.Join(dir, "keep")
	os.WriteFile(target, nil, 0o644)
	link := filepath.Join(dir, "ln")
	os.Symlink(target, link)
	if _, err := Remove(bg, RemoveParams{Path: link}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatal("removing a link removed its target")
	}
	if _, err := Remove(bg, RemoveParams{Path: d, Recursive: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := Remove(bg, RemoveParams{Path: "/"}); kindOf(t, err) != rpc.Denied {
		t.Fatalf("removing /: %v", err)
	}
	if _, err := Remove(bg, RemoveParams{Path: d}); kindOf(t, err) != rpc.NotFound {
		t.Fatalf("removing what is gone: %v", err)
	}
}
