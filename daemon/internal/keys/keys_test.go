package keys

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The key table the TypeScript side holds KEYS to. UPDATE_VECTORS=1 go test ./internal/keys writes it.
const vectorPath = "../../../test/vectors/keys.json"

type vector struct {
	Comment   string `json:"comment"`
	Named     []Key  `json:"named"`
	Printable [2]int `json:"printable"`
}

func TestKeyTableMatchesTheVector(t *testing.T) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.Encode(vector{
		Comment:   "input.actions' key table: the named keys in src/daemon/actions.ts's order with their X keysyms (daemon/internal/keys), and the printable ASCII range a one-character key takes. Written by TestKeyTableMatchesTheVector.",
		Named:     Named,
		Printable: [2]int{0x21, 0x7e},
	})
	if os.Getenv("UPDATE_VECTORS") == "1" {
		os.MkdirAll(filepath.Dir(vectorPath), 0o755)
		if err := os.WriteFile(vectorPath, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(vectorPath)
	if err != nil {
		t.Fatalf("%v (write it with UPDATE_VECTORS=1 go test ./internal/keys)", err)
	}
	if !bytes.Equal(got, buf.Bytes()) {
		t.Fatal("test/vectors/keys.json differs from the Go table: run UPDATE_VECTORS=1 go test ./internal/keys and review the change")
	}
}

func TestKeysym(t *testing.T) {
	for key, want := range map[string]uint32{"enter": 0xff0d, "a": 'a', "~": '~', "A": 'A', "f12": 0xffc9} {
		if got, ok := Keysym(key); !ok || got != want {
			t.Errorf("%q: %#x %v, want %#x", key, got, ok, want)
		}
	}
	for _, key := range []string{"Hyper_Q", " ", "é", "ab", "", "Enter"} {
		if _, ok := Keysym(key); ok {
			t.Errorf("%q is not a key", key)
		}
	}
}

func TestOfRune(t *testing.T) {
	for r, want := range map[rune]uint32{'a': 'a', ' ': ' ', 'é': 0xe9, '\n': Return, '\t': Tab, '€': 0x10020ac, '好': 0x100597d} {
		if got := OfRune(r); got != want {
			t.Errorf("%q: %#x, want %#x", r, got, want)
		}
	}
}
