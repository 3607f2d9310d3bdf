// Package rpctest is a small JSON-RPC client for tests: it serves a daemon over pipes (or
// joins a stream) and calls methods by name, replies matched by id; and finds the processes a
// test started by a marker in their command line; and runs a test binary as a guard when the
// daemon under test starts one.
package rpctest
