package rpc

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
)

// A chunk's params are one long base64 string beside a few small members. encoding/json reads
// such a line twice over at a few ns a byte; here the long data strings are cut out, the rest
// (a few hundred bytes) goes through the strict decoder as before, and each cut string is
// decoded from base64 where it lies. The result and the error words are the strict decoder's.

// quickParamsMin is how long params must be before cutting is worth a scan.
const quickParamsMin = 16 << 10

// quickCutMin is how long a data string must be to be cut out.
const quickCutMin = 1 << 10

// bytesFieldsOf caches, per params type, its Bytes and *Bytes fields by JSON name; nil when
// the type has a shape where cutting could change what the decoder does (embedded fields,
// ",string", other decoders of their own, names the decoder would fold).
var bytesFieldsOf sync.Map // reflect.Type -> map[string]int

func bytesFields(t reflect.Type) map[string]int {
	if v, ok := bytesFieldsOf.Load(t); ok {
		return v.(map[string]int)
	}
	out := map[string]int{}
	var names []string
	for i := 0; t.Kind() == reflect.Struct && i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous || !f.IsExported() || name == "" || name == "-" || (opts != "" && opts != "omitempty") || !plainDecoded(f.Type, map[reflect.Type]bool{}) {
			out = nil
			break
		}
		for _, other := range names {
			if strings.EqualFold(other, name) {
				out = nil
			}
		}
		if out == nil {
			break
		}
		names = append(names, name)
		if f.Type == bytesType || (f.Type.Kind() == reflect.Pointer && f.Type.Elem() == bytesType) {
			out[name] = i
		}
	}
	bytesFieldsOf.Store(t, out)
	return out
}

// plainDecoded: nothing in t decodes itself, except Bytes.
func plainDecoded(t reflect.Type, seen map[reflect.Type]bool) bool {
	if t == bytesType || seen[t] {
		return true
	}
	seen[t] = true
	p := reflect.PointerTo(t)
	if p.Implements(reflect.TypeFor[json.Unmarshaler]()) || p.Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return false
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return plainDecoded(t.Elem(), seen)
	case reflect.Map:
		return plainDecoded(t.Key(), seen) && plainDecoded(t.Elem(), seen)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if !plainDecoded(t.Field(i).Type, seen) {
				return false
			}
		}
	case reflect.Interface:
		return t.NumMethod() == 0
	}
	return true
}

type cut struct {
	field      int
	start, end int // the string's bounds in raw, quotes included
}

// quickParams decodes raw into p when it can cut; handled false means "decode it the usual way".
func quickParams(raw []byte, p any, strict func(raw []byte, p any) error) (handled bool, err error) {
	v := reflect.ValueOf(p).Elem()
	fields := bytesFields(v.Type())
	if len(fields) == 0 {
		return false, nil
	}
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false, nil
	}
	var cuts []cut
	var keys [][]byte
	end, ok := eachMember(raw, i, 0, func(key []byte, start, end int) bool {
		k := key[1 : len(key)-1]
		for _, c := range k {
			if c >= 0x80 || c == '\\' {
				return false
			}
		}
		keys = append(keys, k)
		f, ok := fields[string(k)]
		if !ok {
			return true
		}
		// Every data member is cut or none: the decoder stops at the first bad one, and
		// which comes first is its to say.
		if end-start < quickCutMin || raw[start] != '"' || bytes.IndexByte(raw[start:end], '\\') >= 0 {
			return false
		}
		cuts = append(cuts, cut{f, start, end})
		return true
	})
	if !ok || skipSpace(raw, end) != len(raw) || len(cuts) == 0 {
		return false, nil
	}
	// A key given twice (or once more in another case) is the decoder's to settle.
	for _, c := range cuts {
		name := []byte(fieldName(v.Type(), c.field))
		n := 0
		for _, key := range keys {
			if bytes.EqualFold(key, name) {
				n++
			}
		}
		if n != 1 {
			return false, nil
		}
	}
	// The decoder would stop at the first bad data string, before any error it only notes.
	data := make([]Bytes, len(cuts))
	for n, c := range cuts {
		if err := data[n].decode(raw[c.start+1 : c.end-1]); err != nil {
			return true, err
		}
	}
	skeleton := make([]byte, 0, len(raw)-len(cuts)*quickCutMin+16)
	last := 0
	for _, c := range cuts {
		skeleton = append(append(skeleton, raw[last:c.start]...), `""`...)
		last = c.end
	}
	skeleton = append(skeleton, raw[last:]...)
	if err := strict(skeleton, p); err != nil {
		return true, err
	}
	for n, c := range cuts {
		f := v.Field(c.field)
		if f.Kind() == reflect.Pointer {
			f.Set(reflect.ValueOf(&data[n]))
		} else {
			f.Set(reflect.ValueOf(data[n]))
		}
	}
	return true, nil
}

func fieldName(t reflect.Type, i int) string {
	name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
	return name
}
