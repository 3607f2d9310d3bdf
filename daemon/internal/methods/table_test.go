package methods

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"agentrun.dev/computerd/internal/rpc"
)

// The method table the TypeScript side holds itself to: test/vectors/methods.json, made from
// the Go types beside each handler. UPDATE_VECTORS=1 go test ./internal/methods writes it.
const vectorPath = "../../../test/vectors/methods.json"

type fieldDoc struct {
	Name     string     `json:"name"`
	Type     string     `json:"type"`
	Optional bool       `json:"optional,omitempty"`
	Fields   []fieldDoc `json:"fields,omitempty"`
}

type methodDoc struct {
	Name   string     `json:"name"`
	Params []fieldDoc `json:"params"`
	Result []fieldDoc `json:"result"`
}

type tableDoc struct {
	Comment    string      `json:"comment"`
	MaxLine    int         `json:"maxLineBytes"`
	ErrorKinds []rpc.Kind  `json:"errorKinds"`
	Methods    []methodDoc `json:"methods"`
}

var bytesType = reflect.TypeOf(rpc.Bytes(nil))

// rawType is a value the method reads itself (input.actions' actions): unknown to the table.
var rawType = reflect.TypeOf(json.RawMessage(nil))

func describeType(t reflect.Type) (string, []fieldDoc) {
	nullable := ""
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
		nullable = "|null"
	}
	switch {
	case t == bytesType:
		return "base64" + nullable, nil
	case t == rawType:
		return "unknown" + nullable, nil
	case t.Kind() == reflect.String:
		return "string" + nullable, nil
	case t.Kind() == reflect.Bool:
		return "boolean" + nullable, nil
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Float64:
		return "number" + nullable, nil
	case t.Kind() == reflect.Map:
		v, _ := describeType(t.Elem())
		return "record<string," + v + ">" + nullable, nil
	case t.Kind() == reflect.Slice, t.Kind() == reflect.Array:
		v, f := describeType(t.Elem())
		return v + "[]" + nullable, f
	case t.Kind() == reflect.Struct:
		return "object" + nullable, describeFields(t, false)
	}
	return t.String(), nil
}

func describeFields(t reflect.Type, params bool) []fieldDoc {
	out := []fieldDoc{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && name == "" {
			out = append(out, describeFields(f.Type, params)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		typ, sub := describeType(f.Type)
		optional := strings.Contains(opts, "omitempty")
		if optional || params {
			typ = strings.TrimSuffix(typ, "|null")
		}
		out = append(out, fieldDoc{Name: name, Type: typ, Optional: optional, Fields: sub})
	}
	return out
}

func methodTable() tableDoc {
	d := newDaemon()
	table := d.Table(d.NewSession())
	names := make([]string, 0, len(table))
	for n := range table {
		names = append(names, n)
	}
	sort.Strings(names)
	doc := tableDoc{
		Comment:    "computerd's methods: JSON-RPC 2.0, one object per line. Made from the Go types in daemon/ by TestMethodTableMatchesTheVector; an optional field may be left out, a type ending in |null may be null.",
		MaxLine:    rpc.MaxLine,
		ErrorKinds: rpc.Kinds,
	}
	for _, n := range names {
		e := table[n]
		doc.Methods = append(doc.Methods, methodDoc{
			Name:   n,
			Params: describeFields(reflect.TypeOf(e.Params), true),
			Result: describeFields(reflect.TypeOf(e.Result), false),
		})
	}
	return doc
}

func TestMethodTableMatchesTheVector(t *testing.T) {
	matchVector(t, vectorPath, methodTable())
}

// matchVector holds the vector at path to doc, written as indented JSON; UPDATE_VECTORS=1
// writes it first.
func matchVector(t *testing.T, path string, doc any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		t.Fatal(err)
	}
	want := buf.Bytes()
	if os.Getenv("UPDATE_VECTORS") == "1" {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (write it with UPDATE_VECTORS=1 go test ./internal/methods)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("test/vectors/%s differs from the Go side: run UPDATE_VECTORS=1 go test ./internal/methods and review the change", filepath.Base(path))
	}
}
