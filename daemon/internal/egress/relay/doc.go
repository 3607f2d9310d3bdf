// Package relay is `computerd init --egress <sock>`: port 3128 of the computer's own loopback
// carried, connection by connection, to its egress proxy's Unix socket, and the proxy
// variables every program init starts is given.
package relay
