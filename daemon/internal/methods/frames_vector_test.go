package methods

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"sync/atomic"
	"testing"

	"agentrun.dev/computerd/internal/rpc"
)

// The frames the TypeScript side holds itself to: test/vectors/frames.json, made from the Go
// types and from frames this daemon wrote. UPDATE_VECTORS=1 go test ./internal/methods writes it.
const framesVectorPath = "../../../test/vectors/frames.json"

type frameExample struct {
	What  string `json:"what"`
	Head  string `json:"head"`
	Bytes string `json:"bytesHex"`
	Frame string `json:"frameHex"`
}

type framesDoc struct {
	Comment       string         `json:"comment"`
	Mark          int            `json:"mark"`
	LeadBytes     int            `json:"leadBytes"`
	Version       int            `json:"version"`
	MaxHeadBytes  int            `json:"maxHeadBytes"`
	MaxFrameBytes int            `json:"maxFrameBytes"`
	BytesIn       []string       `json:"bytesIn"`
	BytesOut      []string       `json:"bytesOut"`
	InOrder       []string       `json:"inOrder"`
	Requests      []frameExample `json:"requests"`
	Replies       []frameExample `json:"replies"`
}

// hasData: t is a struct whose data member is bytes.
func hasData(t reflect.Type) bool {
	f, ok := t.FieldByName("Data")
	return ok && f.Type == bytesType && f.Tag.Get("json") == "data"
}

func requestFrame(what, head string, b []byte) frameExample {
	f := append(append(rpc.AppendFrameLead(nil, len(head), len(b)), head...), b...)
	return frameExample{What: what, Head: head, Bytes: hex.EncodeToString(b), Frame: hex.EncodeToString(f)}
}

// served sends each request frame on one framed connection and keeps the raw frame each reply
// came as.
func served(t *testing.T, requests []frameExample) []frameExample {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go func() {
		newDaemon().Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	defer inW.Close()
	go inW.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"hello","params":{"frames":1}}` + "\n"))
	var frames atomic.Bool
	frames.Store(true)
	lines := rpc.NewLineReader(outR, rpc.MaxLine)
	if _, err := lines.Next(); err != nil {
		t.Fatal(err)
	}
	var out []frameExample
	for _, r := range requests {
		f, _ := hex.DecodeString(r.Frame)
		go inW.Write(f)
		m, err := lines.NextMessage(&frames)
		if err != nil || !m.Framed {
			t.Fatalf("%s: the reply is not a frame: %q %v", r.What, m.Head, err)
		}
		head := string(m.Head)
		out = append(out, frameExample{
			What:  "the reply to " + r.What,
			Head:  head,
			Bytes: hex.EncodeToString(m.Bytes),
			Frame: hex.EncodeToString(append(append(rpc.AppendFrameLead(nil, len(head), len(m.Bytes)), head...), m.Bytes...)),
		})
	}
	return out
}

func framesTable(t *testing.T) framesDoc {
	d := newDaemon()
	table := d.Table(d.NewSession())
	doc := framesDoc{
		Comment:       "computerd's frames, past the spec's wire, for a client that asked in hello: a mark byte, the header's and the bytes' lengths (uint32, big-endian), the header (the JSON-RPC message, its data member \"\"), the bytes (that member's value). bytesIn and bytesOut are the methods whose params or result carry data; inOrder the methods whose requests run in the order they came, by their params' id. Made by TestFramesMatchTheVector.",
		Mark:          rpc.FrameMark,
		LeadBytes:     len(rpc.AppendFrameLead(nil, 0, 0)),
		Version:       rpc.FrameVersion,
		MaxHeadBytes:  rpc.MaxLine,
		MaxFrameBytes: rpc.MaxFrameBytes,
		BytesIn:       []string{},
		BytesOut:      []string{},
		InOrder:       []string{},
	}
	for name, e := range table {
		if hasData(reflect.TypeOf(e.Params)) {
			doc.BytesIn = append(doc.BytesIn, name)
		}
		if hasData(reflect.TypeOf(e.Result)) {
			doc.BytesOut = append(doc.BytesOut, name)
		}
		if e.InOrder {
			doc.InOrder = append(doc.InOrder, name)
		}
	}
	sort.Strings(doc.BytesIn)
	sort.Strings(doc.BytesOut)
	sort.Strings(doc.InOrder)

	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, []byte{0, 1, 2, '\n', 0xff, '"'}, 0o644)
	pathJSON, _ := json.Marshal(path)
	doc.Requests = []frameExample{
		requestFrame("files.write of 4 bytes", `{"jsonrpc":"2.0","id":1,"method":"files.write","params":{"path":"/work/a.bin","data":"","offset":0}}`, []byte{0, '\n', 0xff, '{'}),
		requestFrame("files.read, no bytes", `{"jsonrpc":"2.0","id":2,"method":"files.read","params":{"path":`+string(pathJSON)+`}}`, nil),
		requestFrame("tar.push.write of 2 bytes", `{"jsonrpc":"2.0","id":3,"method":"tar.push.write","params":{"id":"push1","data":""}}`, []byte("ab")),
	}
	doc.Replies = served(t, doc.Requests[1:2])
	// The path is this run's: the vector holds a fixed one in its place.
	for i := range doc.Replies {
		doc.Replies[i].What = "the reply to files.read of a 6-byte file"
	}
	doc.Requests[1] = requestFrame("files.read, no bytes", `{"jsonrpc":"2.0","id":2,"method":"files.read","params":{"path":"/work/f"}}`, nil)
	return doc
}

func TestFramesMatchTheVector(t *testing.T) {
	matchVector(t, framesVectorPath, framesTable(t))
}
