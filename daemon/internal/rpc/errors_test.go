package rpc

import (
	"context"
	"errors"
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

// Errorf with %w keeps the error it wraps (errors.Is sees it) and gives the kind asked for.
func TestErrorfWrapsWithItsKind(t *testing.T) {
	err := Errorf(Limit, "%w", ErrLineTooLong)
	if !errors.Is(err, ErrLineTooLong) {
		t.Fatalf("errors.Is(%v, ErrLineTooLong) is false", err)
	}
	if KindOf(err) != Limit || err.Error() != ErrLineTooLong.Error() {
		t.Fatalf("Errorf(Limit, %%w, ErrLineTooLong) = %q of kind %s", err.Error(), KindOf(err))
	}
	if plain := Errorf(Invalid, "no %s", "cause"); errors.Unwrap(plain) != nil || plain.Error() != "no cause" {
		t.Fatalf("Errorf without %%w: %q wraps %v", plain.Error(), errors.Unwrap(plain))
	}
}
