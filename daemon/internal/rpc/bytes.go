package rpc

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
)

// Bytes is data on the wire: standard base64, never null (an empty value is "").
//
// It has no marshal method of its own: encoding/json writes a byte slice as base64 straight
// into its buffer, where a MarshalJSON result is re-scanned to compact it and a MarshalText
// one to quote it (half a read's CPU for a 512 KiB chunk). A nil slice would go out as null,
// so every reply goes through withEmptyBytes first.
type Bytes []byte

func (b *Bytes) UnmarshalJSON(data []byte) error {
	// The decoder hands over a literal it has already checked: a string with no escape is its
	// own bytes between the quotes, decoded in place. Anything else takes the general way.
	if n := len(data); n >= 2 && data[0] == '"' && data[n-1] == '"' && bytes.IndexByte(data[1:n-1], '\\') < 0 {
		return b.decode(data[1 : n-1])
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("data must be a base64 string")
	}
	return b.decode([]byte(s))
}

func (b *Bytes) decode(text []byte) error {
	d := make([]byte, base64.StdEncoding.DecodedLen(len(text)))
	n, err := base64.StdEncoding.Decode(d, text)
	if err != nil {
		return fmt.Errorf("data is not base64: %v", err)
	}
	*b = d[:n]
	return nil
}

var bytesType = reflect.TypeFor[Bytes]()

// withEmptyBytes returns v with every nil Bytes in it (at any depth encoding/json reaches)
// made empty, copying only what holds one; v itself when there is none.
func withEmptyBytes(v any) any {
	if v == nil {
		return nil
	}
	rv := reflect.ValueOf(v)
	if out, changed := fillBytes(rv); changed {
		return out.Interface()
	}
	return v
}

func fillBytes(v reflect.Value) (reflect.Value, bool) {
	t := v.Type()
	if !holdsBytes(t) {
		return v, false
	}
	switch t.Kind() {
	case reflect.Slice:
		if t == bytesType {
			if v.IsNil() {
				return reflect.ValueOf(Bytes{}), true
			}
			return v, false
		}
		var out reflect.Value
		for i := 0; i < v.Len(); i++ {
			if e, changed := fillBytes(v.Index(i)); changed {
				if !out.IsValid() {
					out = reflect.MakeSlice(t, v.Len(), v.Len())
					reflect.Copy(out, v)
				}
				out.Index(i).Set(e)
			}
		}
		return orSame(out, v)
	case reflect.Array:
		var out reflect.Value
		for i := 0; i < v.Len(); i++ {
			if e, changed := fillBytes(v.Index(i)); changed {
				if !out.IsValid() {
					out = reflect.New(t).Elem()
					out.Set(v)
				}
				out.Index(i).Set(e)
			}
		}
		return orSame(out, v)
	case reflect.Pointer:
		if v.IsNil() {
			return v, false
		}
		if e, changed := fillBytes(v.Elem()); changed {
			out := reflect.New(t.Elem())
			out.Elem().Set(e)
			return out, true
		}
		return v, false
	case reflect.Interface:
		if v.IsNil() {
			return v, false
		}
		if e, changed := fillBytes(v.Elem()); changed {
			out := reflect.New(t).Elem()
			out.Set(e)
			return out, true
		}
		return v, false
	case reflect.Map:
		var out reflect.Value
		for it := v.MapRange(); it.Next(); {
			if e, changed := fillBytes(it.Value()); changed {
				if !out.IsValid() {
					out = reflect.MakeMapWithSize(t, v.Len())
					for c := v.MapRange(); c.Next(); {
						out.SetMapIndex(c.Key(), c.Value())
					}
				}
				out.SetMapIndex(it.Key(), e)
			}
		}
		return orSame(out, v)
	case reflect.Struct:
		var out reflect.Value
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); !f.IsExported() && !f.Anonymous {
				continue // encoding/json does not write it
			}
			if e, changed := fillBytes(v.Field(i)); changed {
				if !out.IsValid() {
					out = reflect.New(t).Elem()
					out.Set(v)
				}
				if out.Field(i).CanSet() {
					out.Field(i).Set(e)
				}
			}
		}
		return orSame(out, v)
	}
	return v, false
}

func orSame(out, v reflect.Value) (reflect.Value, bool) {
	if out.IsValid() {
		return out, true
	}
	return v, false
}

// holdsBytesOf caches, per type, whether a value of it can hold a Bytes (an interface might).
var holdsBytesOf sync.Map // reflect.Type -> bool

func holdsBytes(t reflect.Type) bool {
	if v, ok := holdsBytesOf.Load(t); ok {
		return v.(bool)
	}
	h := holdsBytesIn(t, map[reflect.Type]bool{})
	holdsBytesOf.Store(t, h)
	return h
}

// holdsBytesIn answers for t; a type met again on the way is answered by its other parts.
func holdsBytesIn(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t.Kind() {
	case reflect.Slice:
		return t == bytesType || holdsBytesIn(t.Elem(), seen)
	case reflect.Array, reflect.Pointer, reflect.Map:
		return holdsBytesIn(t.Elem(), seen)
	case reflect.Interface:
		return true
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); (f.IsExported() || f.Anonymous) && holdsBytesIn(f.Type, seen) {
				return true
			}
		}
	}
	return false
}
