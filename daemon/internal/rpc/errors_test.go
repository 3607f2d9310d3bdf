package rpc

import (
	"context"
	"fmt"
	"os"
	"syscall"
	"testing"
)

// An errno keeps its kind through any wrapping, and a kind given by the code wins.
func TestKindOfSurvivesWrapping(t *testing.T) {
	for _, tc := range []struct {
		err  error
		kind Kind
	}{
		{fmt.Errorf("opening /x: %w", syscall.ENOENT), NotFound},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", syscall.EACCES)), Denied},
		{&os.PathError{Op: "open", Path: "/x", Err: syscall.EISDIR}, IsDir},
		{fmt.Errorf("rmdir: %w", syscall.ENOTEMPTY), IsDir},
		{fmt.Errorf("open: %w", syscall.ELOOP), Denied},
		{fmt.Errorf("rename: %w", syscall.EXDEV), Unsupported},
		{fmt.Errorf("write: %w", syscall.ENOSPC), Limit},
		{fmt.Errorf("x: %w", Errorf(Exists, "there")), Exists},
		{context.Canceled, Aborted},
		{fmt.Errorf("no errno at all"), Invalid},
	} {
		if got := KindOf(tc.err); got != tc.kind {
			t.Errorf("KindOf(%v) = %s, want %s", tc.err, got, tc.kind)
		}
	}
	w := toWire(fmt.Errorf("reading: %w", syscall.ENOENT))
	if w.Data.Kind != NotFound || w.Message != "reading: no such file or directory" || w.Code != codeServer {
		t.Fatalf("on the wire: %+v", w)
	}
}
