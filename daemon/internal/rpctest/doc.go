// Package rpctest is a small JSON-RPC client for tests: it serves a daemon over pipes (or
// joins a stream) and calls methods by name, replies matched by id.
package rpctest
