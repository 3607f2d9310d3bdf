// Package proxy is the egress proxy's server: HTTP CONNECT, absolute-form HTTP and SOCKS5
// CONNECT on one listener, each target checked against the list and the address table
// before any socket opens, a name resolved once with every answer checked and the checked
// address dialled, a redirect passed back as sent, and one log line per target holding its
// host, port, address and class alone.
package proxy
