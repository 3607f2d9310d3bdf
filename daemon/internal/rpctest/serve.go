package rpctest

import (
	"context"
	"io"
	"testing"
)

// Server is anything that serves one connection.
type Server interface {
	Serve(ctx context.Context, r io.Reader, w io.Writer) error
}

// Connect serves one in-process connection and returns a client for it; the connection ends
// with the test, and Cleanup waits for its requests to reply.
func Connect(t testing.TB, s Server) *Client {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		s.Serve(context.Background(), inR, outW)
		outW.Close()
		close(done)
	}()
	c := New(outR, inW)
	t.Cleanup(func() {
		inW.Close()
		<-done
	})
	return c
}
