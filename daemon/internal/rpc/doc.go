// Package rpc is computerd's JSON-RPC 2.0 line protocol: one object per line, each request
// served at once on its own goroutine, replies in any order, errors carried with their kind.
package rpc
