// Package nocgo runs a package's tests without cgo, as computerd is built. Go builds with cgo
// wherever it finds a C compiler, and in such a binary init refuses to start (one call cannot
// reach every thread). From TestMain, Main builds the test binary again with CGO_ENABLED=0 and
// the first build's -tags and -ldflags, runs it with the same arguments and environment, and
// returns its exit code; a binary without cgo runs its tests itself.
package nocgo
