package rpc

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

var envelopeSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	` {"jsonrpc" : "2.0" , "id" : "a\"b" , "method" : "files.write" , "params" : {"path":"/x","data":"QUJD"}} `,
	`{"jsonrpc":"2.0","id":null,"method":null,"params":null}`,
	`{"jsonrpc":"2.0","ID":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}`,
	`{"jsonrpc":2,"id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":["ping"]}`,
	`{"jſonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","i\u0064":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":-1.5e+3,"method":"ping","extra":[1,true,false,null,{"a":[]}]}`,
	`{"jsonrpc":"2.0","id":01,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"`,
	`{"jsonrpc":"2.0","id":1,"method":"pi` + "\x01" + `ng"}`,
	`{"jsonrpc":"2.0","id":1,"method":"p\u00e9\n\/ng","params":{"data":"\x"}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping"} x`,
	`[1,2]`, `"str"`, `{}`, `{"a":1,}`, `{"a" 1}`, `{"a":tru}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`,
	`{"method":"` + strings.Repeat("QUJD", 5000) + `"}`,
}

// The quick envelope reader must agree with encoding/json wherever it answers at all, and
// its validity with json.Valid on every line.
func checkEnvelope(t *testing.T, line []byte) {
	end, ok := skipValue(line, skipSpace(line, 0), 0)
	ok = ok && skipSpace(line, end) == len(line)
	if ok != json.Valid(line) && len(line) < 4096 {
		t.Fatalf("quick validity %v, json.Valid %v for %q", ok, !ok, line)
	}
	quick, qok := quickRequest(line)
	if !qok {
		return
	}
	var want request
	if err := json.Unmarshal(line, &want); err != nil {
		t.Fatalf("quick reader took %q, encoding/json refuses it: %v", line, err)
	}
	if len(want.Params) == 0 {
		want.Params = nil
	}
	if len(quick.Params) == 0 {
		quick.Params = nil
	}
	if !reflect.DeepEqual(quick, want) {
		t.Fatalf("for %q quick reader gave %+v, encoding/json %+v", line, quick, want)
	}
}

func FuzzRequestEnvelope(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) { checkEnvelope(t, line) })
}

func TestHasControl(t *testing.T) {
	for n := 0; n < 2000; n++ {
		b := make([]byte, rand.IntN(40))
		for i := range b {
			b[i] = byte(0x18 + rand.IntN(16)) // around 0x20, where the word test could slip
			if rand.IntN(4) == 0 {
				b[i] = byte(rand.IntN(256))
			}
		}
		want := false
		for _, c := range b {
			if c < 0x20 {
				want = true
			}
		}
		if hasControl(b) != want {
			t.Fatalf("hasControl(%x) = %v", b, !want)
		}
	}
}
