package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// Method makes a Handler of a typed function: params decoded strictly (an unknown field is
// invalid, so a misspelt option never passes silently), the result encoded as it is.
func Method[P any, R any](fn func(ctx context.Context, p P) (R, error)) Handler {
	return func(ctx context.Context, raw json.RawMessage) (any, error) {
		var p P
		if len(raw) > 0 && !bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
			handled, err := false, error(nil)
			if len(raw) >= quickParamsMin {
				handled, err = quickParams(raw, &p, decodeStrict)
			}
			if !handled {
				err = decodeStrict(raw, &p)
			}
			if err != nil {
				return nil, Errorf(Invalid, "invalid params: %v", err)
			}
		}
		if err := fillData(ctx, &p); err != nil {
			return nil, err
		}
		return fn(ctx, p)
	}
}

func decodeStrict(raw []byte, p any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(p)
}

// Entry is one method: its handler and the zero values of its param and result types.
type Entry struct {
	Handler Handler
	Params  any
	Result  any
	// InOrder: on a connection that asked for frames, requests with the same params id run one
	// after another in the order they came (a push's writes, a pull's reads).
	InOrder bool
}

// Ordered is e with its requests run in order by their params id.
func (e Entry) Ordered() Entry {
	e.InOrder = true
	return e
}

// Def defines a method by its typed function.
func Def[P any, R any](fn func(ctx context.Context, p P) (R, error)) Entry {
	var p P
	var r R
	return Entry{Handler: Method(fn), Params: p, Result: r}
}

// String names an Entry's types, for error messages in tests.
func (e Entry) String() string { return fmt.Sprintf("%T -> %T", e.Params, e.Result) }
