package files

import (
	"archive/tar"

	"agentrun.dev/computerd/internal/rpc"
	"io"
	"testing"
	"time"
)

// A write is answered once its chunk is queued, before the extractor reads it, and the next
// waits until the extractor took the one before: one chunk held ahead, no more.
func TestPushWriteIsAnsweredOneChunkAhead(t *testing.T) {
	p := &push{in: newHandoff(), done: make(chan struct{}), x: &extractor{}}
	if err := p.write([]byte("first")); err != nil {
		t.Fatal(err)
	}
	second := make(chan error, 1)
	go func() { second <- p.write([]byte("second")) }()
	select {
	case err := <-second:
		t.Fatalf("the second write was answered (%v) while the first was not yet taken", err)
	case <-time.After(50 * time.Millisecond):
	}
	buf := make([]byte, 3)
	if n, _ := p.in.Read(buf); string(buf[:n]) != "fir" {
		t.Fatalf("read %q", buf[:n])
	}
	if err := <-second; err != nil {
		t.Fatal(err)
	}
	close(p.in.queue)
	rest, _ := io.ReadAll(p.in)
	if string(rest) != "stsecond" {
		t.Fatalf("the rest read %q", rest)
	}
}

// Once the extractor has ended (a refusal), a write is answered with its refusal, never queued.
func TestPushWriteAfterARefusalSaysIt(t *testing.T) {
	dst := t.TempDir()
	p, err := beginPush(dst)
	if err != nil {
		t.Fatal(err)
	}
	bad := makeTar(t, tarEntry{name: "../escape", typ: tar.TypeReg})
	_ = p.write(bad)
	<-p.done
	if err := p.write([]byte("more")); kindOf(t, err) != rpc.Denied {
		t.Fatalf("%v, want the refusal", err)
	}
	if _, err := p.end(); kindOf(t, err) != rpc.Denied {
		t.Fatalf("end: %v, want the refusal", err)
	}
}
