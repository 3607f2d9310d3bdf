// Package vectortest holds a Go table to the file both languages read (test/vectors/*.json): the
// table written as indented JSON (no HTML escaping) must be the file's bytes; UPDATE_VECTORS=1
// writes it first. Test code only, imported by _test.go files alone.
package vectortest

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// Match fails t unless the file at path is v as JSON; what says what v is, rerun the command that writes it.
func Match(t *testing.T, path string, v any, what, rerun string) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_VECTORS") == "1" {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	on, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(on, b.Bytes()) {
		t.Fatalf("%s is not %s (%v): run UPDATE_VECTORS=1 %s", path, what, err, rerun)
	}
}
