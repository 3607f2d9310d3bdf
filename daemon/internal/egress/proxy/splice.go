package proxy

import (
	"io"
	"net"
)

// splice copies both ways until both ends have closed their side: the client's bytes
// (buffered ones first) to the upstream, and the upstream's back.
func splice(client net.Conn, fromClient io.Reader, up net.Conn) {
	widen(client)
	done := make(chan struct{}, 1)
	go func() {
		io.Copy(up, fromClient)
		closeWrite(up)
		done <- struct{}{}
	}()
	io.Copy(client, up)
	closeWrite(client)
	<-done
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

// clientBuffer is the send buffer a client's socket gets before a response or tunnel is
// copied to it: at the default (208 KiB) each splice waits on the reader many times per
// MiB, and the copy ran at half the speed of a direct download (bench/egress-proxy.mjs).
const clientBuffer = 512 << 10

// widen gives the client's socket clientBuffer to send from (the kernel doubles it for its
// own use), so a fast reader is never waiting on the proxy.
func widen(client net.Conn) {
	if w, ok := client.(interface{ SetWriteBuffer(int) error }); ok {
		w.SetWriteBuffer(clientBuffer)
	}
}
