package sums

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestLines(t *testing.T) {
	dir := t.TempDir()
	body := bytes.Repeat([]byte("agentrun "), 200_000)
	sum := sha256.Sum256(body)
	must(t, os.WriteFile(filepath.Join(dir, "file"), body, 0o600))
	must(t, syscall.Chmod(filepath.Join(dir, "file"), 0o4751))
	must(t, os.WriteFile(filepath.Join(dir, "empty"), nil, 0o644))
	must(t, os.Symlink("file", filepath.Join(dir, "link")))
	must(t, os.Mkdir(filepath.Join(dir, "dir"), 0o755))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	empty := sha256.Sum256(nil)

	var out, errs bytes.Buffer
	paths := []string{"file", "empty", "link", "dir", "fifo", "missing", filepath.Join(dir, "file")}
	t.Chdir(dir)
	if code := Main(paths, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	want := []string{
		"4751 " + hex.EncodeToString(sum[:]),
		"644 " + hex.EncodeToString(empty[:]),
		"-", "-", "-", "-",
		"4751 " + hex.EncodeToString(sum[:]),
	}
	if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestUsage(t *testing.T) {
	var out, errs bytes.Buffer
	if code := Main(nil, &out, &errs); code != 2 || !strings.Contains(errs.String(), "computerd sums <path>") {
		t.Fatalf("no paths: exit %d, %q", code, errs.String())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
