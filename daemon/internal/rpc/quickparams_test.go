package rpc

import (
	"encoding/base64"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type quickProbe struct {
	Path   string            `json:"path"`
	Data   Bytes             `json:"data"`
	Stdin  *Bytes            `json:"stdin,omitempty"`
	Offset *int64            `json:"offset,omitempty"`
	Env    map[string]string `json:"env,omitempty"`
}

// checkParams decodes raw both ways; cutting must give the strict decoder's value or words.
func checkParams(t *testing.T, raw []byte) {
	var want, got quickProbe
	wantErr := decodeStrict(raw, &want)
	handled, gotErr := quickParams(raw, &got, decodeStrict)
	if !handled {
		return
	}
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("for %.200q: cut gives error %v, strict %v", raw, gotErr, wantErr)
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("for %.200q: cut gives %+v, strict %+v", raw, got, want)
	}
}

func FuzzQuickParams(f *testing.F) {
	long := base64.StdEncoding.EncodeToString(make([]byte, 3000))
	for _, s := range [][2]string{
		{`{"path":"/x","data":`, `}`},
		{`{"path":"/x","offset":5,"data":`, `,"stdin":"QQ=="}`},
		{`{"data":"QQ==","data":`, `}`},
		{`{"DATA":"QQ==","data":`, `}`},
		{`{"Data":`, `}`},
		{`{"path":7,"data":`, `}`},
		{`{"nope":1,"data":`, `}`},
		{`{"stdin":`, `,"data":"QUJD"}`},
		{`{"data":`, `,"stdin":` + `"` + long + `!"}`},
		{` { "data" : `, ` , "env" : {"A":"b"} } `},
		{`{"stdin":7,"data":`, `}`},
		{`{"stdin":"` + long + `","data":`, `}`},
		{`{"stdin":"` + long + `!","data":`, `}`},
		{`{"data":`, `,}`},
		{`{"data":`, `} x`},
	} {
		f.Add(s[0], len(long), s[1])
		f.Add(s[0], len(long)-1, s[1])
	}
	f.Fuzz(func(t *testing.T, head string, n int, tail string) {
		if n < 0 || n > 1<<16 {
			return
		}
		body := strings.Repeat(long, n/len(long)+1)[:n]
		checkParams(t, []byte(head+`"`+body+`"`+tail))
	})
}

// A chunk as the library sends it takes the cut.
func TestQuickParamsTakesAChunk(t *testing.T) {
	data := make([]byte, 512<<10)
	data[7] = 9
	raw := fmt.Appendf(nil, `{"path":"/w/f","data":"%s","offset":524288}`, base64.StdEncoding.EncodeToString(data))
	var p quickProbe
	handled, err := quickParams(raw, &p, decodeStrict)
	if !handled || err != nil || !reflect.DeepEqual([]byte(p.Data), data) || p.Path != "/w/f" || *p.Offset != 524288 {
		t.Fatalf("handled %v, err %v, path %q", handled, err, p.Path)
	}
	checkParams(t, raw)
}
