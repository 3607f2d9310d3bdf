package input

import (
	"encoding/json"
	"strings"
	"testing"

	"agentrun.dev/computerd/internal/rpc"
)

func batch(t *testing.T, js string) []json.RawMessage {
	t.Helper()
	var raw []json.RawMessage
	if err := json.Unmarshal([]byte(js), &raw); err != nil {
		t.Fatal(err)
	}
	return raw
}

func TestCheckRefusesTheWholeBatch(t *testing.T) {
	many := "[" + strings.Repeat(`{"type":"wait","ms":0},`, 100) + `{"type":"wait","ms":0}]`
	longText, _ := json.Marshal(strings.Repeat("a", MaxTypeChars+1))
	for _, tc := range []struct {
		name, batch string
		index       int
		kind        rpc.Kind
		words       string
	}{
		{"too many", many, 100, rpc.Limit, "at most 100 actions"},
		{"not an object", `[{"type":"move","point":[1,1]}, 3]`, 1, rpc.Invalid, "an object with a type"},
		{"unknown type", `[{"type":"jump"}]`, 0, rpc.Invalid, "not an action"},
		{"unknown field", `[{"type":"move","point":[1,1],"speed":2}]`, 0, rpc.Invalid, "speed: a move action has no such field"},
		{"missing field", `[{"type":"move"}]`, 0, rpc.Invalid, "point: a move action needs it"},
		{"null field", `[{"type":"click","point":null}]`, 0, rpc.Invalid, "point: is null"},
		{"point not whole", `[{"type":"move","point":[1.5,2]}]`, 0, rpc.Invalid, "whole pixels"},
		{"count not whole", `[{"type":"click","count":1.5}]`, 0, rpc.Invalid, "count: is a whole number"},
		{"count past 3", `[{"type":"click","count":4}]`, 0, rpc.Invalid, "count: is 1 to 3"},
		{"bad button", `[{"type":"click","button":"back"}]`, 0, rpc.Invalid, "mouse button"},
		{"drag of one point", `[{"type":"drag","path":[[1,1]]}]`, 0, rpc.Invalid, "2 points or more"},
		{"touch", `[{"type":"move","point":[1,1]},{"type":"tap","point":[1,1]}]`, 1, rpc.Unsupported, "X11 has no touch"},
		{"unknown key second", `[{"type":"key","keys":["a"]},{"type":"key","keys":["Hyper_Q"]}]`, 1, rpc.Invalid, `"Hyper_Q" is not a key`},
		{"repeat", `[{"type":"key","keys":["a"],"repeat":101}]`, 0, rpc.Limit, "repeat is at most 100"},
		{"text too long", `[{"type":"type","text":` + string(longText) + `}]`, 0, rpc.Limit, "at most 65536 characters"},
		{"px scroll", `[{"type":"scroll","dy":3,"unit":"px"}]`, 0, rpc.Unsupported, "wheel clicks, not pixels"},
		{"waits", `[{"type":"wait","ms":200000},{"type":"hold","keys":["a"],"ms":100001}]`, 1, rpc.Limit, "at most 300 s"},
		{"keys at once", `[{"type":"key","keys":["a","b","c","d","e","f","g","h","i","j","k","l","m","n","o","p","q"]}]`, 0, rpc.Limit, "at most 16 keys"},
		{"scroll clicks", `[{"type":"scroll","dy":6000,"dx":-4001}]`, 0, rpc.Limit, "at most 10000 wheel clicks"},
		{"drag points", `[{"type":"drag","path":[` + strings.Repeat("[1,1],", 1000) + `[1,1]]}]`, 0, rpc.Limit, "at most 1000 points"},
		{"control character", `[{"type":"type","text":"a\u0007b"}]`, 0, rpc.Invalid, "U+0007 is a control character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, f := Check(batch(t, tc.batch))
			if f == nil || f.Index != tc.index || f.Kind != tc.kind || !strings.Contains(f.Message, tc.words) {
				t.Fatalf("got %+v, want index %d, %s, %q", f, tc.index, tc.kind, tc.words)
			}
		})
	}
}

func TestCheckTakesEveryDesktopAction(t *testing.T) {
	acts, f := Check(batch(t, `[{"type":"move","point":[1,2]},{"type":"down"},{"type":"up","button":"right"},
		{"type":"click","point":[3,4],"count":3,"keys":["ctrl","shift"]},{"type":"drag","path":[[1,1],[2,2]]},
		{"type":"scroll","dy":-2,"dx":1,"unit":"click"},{"type":"key","keys":["ctrl","a"],"repeat":2},
		{"type":"hold","keys":["shift"],"ms":10},{"type":"type","text":"é\ttab\nline"},{"type":"wait","ms":5}]`))
	if f != nil || len(acts) != 10 {
		t.Fatalf("refused %+v", f)
	}
}
