package rpc

import (
	"encoding/json"
	"testing"
)

type bytesInner struct {
	Data Bytes `json:"data"`
}

type bytesOuter struct {
	Data   Bytes                 `json:"data"`
	Ptr    *bytesInner           `json:"ptr"`
	List   []bytesInner          `json:"list"`
	ByName map[string]bytesInner `json:"byName"`
	Any    any                   `json:"any"`
	Opt    *Bytes                `json:"opt"`
	Name   string                `json:"name"`
}

// Bytes goes out as base64 and never as null, however deep the nil one is.
func TestBytesNeverNull(t *testing.T) {
	in := bytesOuter{
		Ptr:    &bytesInner{},
		List:   []bytesInner{{Data: Bytes("hi")}, {}},
		ByName: map[string]bytesInner{"a": {}},
		Any:    bytesInner{},
		Name:   "x",
	}
	b, err := json.Marshal(withEmptyBytes(in))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"data":"","ptr":{"data":""},"list":[{"data":"aGk="},{"data":""}],"byName":{"a":{"data":""}},"any":{"data":""},"opt":null,"name":"x"}`
	if string(b) != want {
		t.Fatalf("got  %s\nwant %s", b, want)
	}
	// The handler's own value is left as it was.
	if in.Data != nil || in.Ptr.Data != nil || in.List[1].Data != nil || in.ByName["a"].Data != nil {
		t.Fatal("withEmptyBytes changed the value it was given")
	}
	// A value with no nil Bytes is passed on as it is.
	full := bytesInner{Data: Bytes{1, 2, 3}}
	if got := withEmptyBytes(full); got.(bytesInner).Data == nil {
		t.Fatal("a full value lost its data")
	}
	b, _ = json.Marshal(withEmptyBytes(&full))
	if string(b) != `{"data":"AQID"}` {
		t.Fatalf("got %s", b)
	}
}
