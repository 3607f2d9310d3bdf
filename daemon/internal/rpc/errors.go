package rpc

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// Kind is what a caller may do about a failure; the spec's closed list.
type Kind string

const (
	NotFound    Kind = "not_found"
	Invalid     Kind = "invalid"
	Timeout     Kind = "timeout"
	Aborted     Kind = "aborted"
	Denied      Kind = "denied"
	Limit       Kind = "limit"
	Unsupported Kind = "unsupported"
	Exists      Kind = "exists"
	NotDir      Kind = "not_dir"
	IsDir       Kind = "is_dir"
)

// Kinds lists every kind, in the order the method table publishes them.
var Kinds = []Kind{NotFound, Invalid, Timeout, Aborted, Denied, Limit, Unsupported, Exists, NotDir, IsDir}

// Error is a failure with its kind, as it goes on the wire, and the error it wraps, if any.
type Error struct {
	Kind    Kind
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }

// Unwrap gives the error a %w in Errorf's format wrapped, so errors.Is and errors.As still see it.
func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an Error of kind k; a %w in format wraps its argument, as fmt.Errorf does.
func Errorf(k Kind, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &Error{Kind: k, Message: err.Error(), Err: errors.Unwrap(err)}
}

// JSON-RPC codes: the standard ones where they fit, -32000 (server error) for the rest.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeServer         = -32000
)

// wireError is the error member of a reply.
type wireError struct {
	Code    int       `json:"code"`
	Message string    `json:"message"`
	Data    errorData `json:"data"`
}

type errorData struct {
	Kind Kind `json:"kind"`
}

// KindOf names the kind of any error: an Error's own, else from the errno it wraps.
// This is the one place a system error becomes a kind.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	switch {
	case errors.Is(err, context.Canceled):
		return Aborted
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return Timeout
	}
	var errno syscall.Errno
	if errors.As(err, &errno) {
		switch errno {
		case syscall.ENOENT:
			return NotFound
		case syscall.EACCES, syscall.EPERM, syscall.EROFS:
			return Denied
		case syscall.EEXIST, syscall.ENOTEMPTY:
			// A directory that still has entries is what remove without recursive meets.
			if errno == syscall.ENOTEMPTY {
				return IsDir
			}
			return Exists
		case syscall.ENOTDIR:
			return NotDir
		case syscall.EISDIR:
			return IsDir
		case syscall.ELOOP:
			// O_NOFOLLOW met a symlink: the daemon refuses to go through it.
			return Denied
		case syscall.EXDEV, syscall.ENOSYS, syscall.EOPNOTSUPP:
			return Unsupported
		case syscall.ENOSPC, syscall.EDQUOT, syscall.EMFILE, syscall.ENFILE, syscall.EAGAIN, syscall.E2BIG, syscall.EFBIG, syscall.ENAMETOOLONG:
			return Limit
		case syscall.ETIMEDOUT:
			return Timeout
		case syscall.EINVAL, syscall.ENXIO:
			return Invalid
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return NotFound
	}
	if errors.Is(err, fs.ErrPermission) {
		return Denied
	}
	if errors.Is(err, fs.ErrExist) {
		return Exists
	}
	return Invalid
}

func toWire(err error) *wireError {
	k := KindOf(err)
	code := codeServer
	if k == Invalid {
		code = codeInvalidParams
	}
	return &wireError{Code: code, Message: err.Error(), Data: errorData{Kind: k}}
}
