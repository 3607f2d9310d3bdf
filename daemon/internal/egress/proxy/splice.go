package proxy

import (
	"io"
	"net"
)

// splice copies both ways until both ends have closed their side: the client's bytes
// (buffered ones first) to the upstream, and the upstream's back.
func splice(client net.Conn, fromClient io.Reader, up net.Conn) {
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
