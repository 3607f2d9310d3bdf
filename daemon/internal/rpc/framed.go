package rpc

import (
	"context"
	"reflect"
	"sync/atomic"
)

// How a frame's bytes reach a method and leave it: the method sees the same params and gives
// the same result as it would for a line, its data member filled from the frame, or moved out
// into the reply's frame. Its checks and its errors are the same either way.

// dataField is the member a frame's bytes stand for, in params and in results.
const dataField = "data"

type frameKey struct{}

// frameOf is the frame a request came in: its bytes, and whether it came as one at all.
type frameOf struct{ bytes []byte }

// withFrame marks ctx as serving a request that came as a frame.
func withFrame(ctx context.Context, b []byte) context.Context {
	return context.WithValue(ctx, frameKey{}, &frameOf{bytes: b})
}

// fillData puts a frame's bytes into p's data member. A method with no such member takes no
// bytes, and a header that gave data itself gives it twice: both invalid.
func fillData(ctx context.Context, p any) error {
	f, _ := ctx.Value(frameKey{}).(*frameOf)
	if f == nil {
		return nil
	}
	v := reflect.ValueOf(p).Elem()
	i, ok := bytesFields(v.Type())[dataField]
	if !ok || v.Field(i).Type() != bytesType {
		if len(f.bytes) > 0 {
			return Errorf(Invalid, "invalid params: this method takes no bytes, and the frame carries %d", len(f.bytes))
		}
		return nil
	}
	field := v.Field(i)
	if field.Len() > 0 {
		return Errorf(Invalid, `invalid params: a frame's header gives data as "", its bytes being the frame's`)
	}
	field.Set(reflect.ValueOf(Bytes(f.bytes)))
	return nil
}

// splitData gives a result with its data member emptied and that member's bytes; ok false when
// the result has no such member, so its reply goes as a line.
func splitData(res any) (head any, b []byte, ok bool) {
	v := reflect.ValueOf(res)
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return res, nil, false
	}
	i, ok := bytesFields(v.Type())[dataField]
	if !ok || v.Field(i).Type() != bytesType {
		return res, nil, false
	}
	b = v.Field(i).Interface().(Bytes)
	out := reflect.New(v.Type()).Elem()
	out.Set(v)
	out.Field(i).Set(reflect.ValueOf(Bytes{}))
	return out.Interface(), b, true
}

type acceptKey struct{}

// AcceptFrames turns frames on for the connection serving ctx, from its next message on, and
// says whether it could (false outside a connection). Hello calls it for a client that asks.
func AcceptFrames(ctx context.Context) bool {
	on, _ := ctx.Value(acceptKey{}).(*atomic.Bool)
	if on == nil {
		return false
	}
	on.Store(true)
	return true
}
