package methods

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"agentrun.dev/computerd/internal/rpc"
	"agentrun.dev/computerd/internal/rpctest"
)

// framed connects and asks for frames in hello.
func framed(t *testing.T) *rpctest.Client {
	c := connect(t)
	var h HelloResult
	c.Must(t, "hello", map[string]any{"client": "test", "frames": 1}, &h)
	if h.Frames != rpc.FrameVersion {
		t.Fatalf("hello did not take up frames: %+v", h)
	}
	return c
}

// rawConn is one connection read as raw bytes: what a client that never asks for frames sees.
type rawConn struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func connectRaw(t *testing.T) *rawConn {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		newDaemon().Serve(context.Background(), inR, outW)
		outW.Close()
		close(done)
	}()
	t.Cleanup(func() {
		inW.Close()
		<-done
	})
	return &rawConn{in: inW, out: bufio.NewReaderSize(outR, 2<<20)}
}

// roundTrip writes b and reads one reply, which must be a line.
func (c *rawConn) roundTrip(t *testing.T, b []byte) map[string]json.RawMessage {
	t.Helper()
	c.in.Write(b)
	line, err := c.out.ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	if line[0] != '{' {
		t.Fatalf("the reply is not a line of JSON: %q", line[:min(len(line), 40)])
	}
	var reply map[string]json.RawMessage
	if err := json.Unmarshal(line, &reply); err != nil {
		t.Fatal(err)
	}
	return reply
}

func TestAClientThatDoesNotAskSeesTheSpecsWire(t *testing.T) {
	c := connectRaw(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, []byte("spec bytes"), 0o644)

	var hello map[string]json.RawMessage
	json.Unmarshal(c.roundTrip(t, []byte(`{"jsonrpc":"2.0","id":1,"method":"hello","params":{"client":"spec"}}`+"\n"))["result"], &hello)
	var keys []string
	for k := range hello {
		keys = append(keys, k)
	}
	if len(keys) != 5 || hello["frames"] != nil {
		t.Fatalf("hello's result has members %v, not the spec's five", keys)
	}

	read := c.roundTrip(t, []byte(`{"jsonrpc":"2.0","id":2,"method":"files.read","params":{"path":"`+path+`"}}`+"\n"))
	if want := `{"data":"` + base64.StdEncoding.EncodeToString([]byte("spec bytes")) + `","eof":true,"size":10}`; string(read["result"]) != want {
		t.Fatalf("files.read: %s, want %s", read["result"], want)
	}

	// A frame from a client that never asked is a line that is not JSON, as the spec answers it.
	frame := append(rpc.AppendFrameLead(nil, 2, 1), "{}x\n"...)
	reply := c.roundTrip(t, frame)
	var e rpctest.WireError
	json.Unmarshal(reply["error"], &e)
	if e.Code != -32700 || e.Data.Kind != "invalid" {
		t.Fatalf("a frame before frames were asked for: %s", reply["error"])
	}
}

func TestFramesCarryAFilesBytesBothWays(t *testing.T) {
	c := framed(t)
	path := filepath.Join(t.TempDir(), "f")
	body := []byte("any byte: \x00\n\xff\"\\ and the rest")
	w := rpctest.Wait(t, second(c.StartFrame("files.write", map[string]any{"path": path, "data": "", "mode": 0o600}, body)))
	if w.Error != nil || w.Framed || string(w.Result) != `{"size":`+strconv.Itoa(len(body))+`}` {
		t.Fatalf("files.write as a frame: %+v", w)
	}
	if on, _ := os.ReadFile(path); !bytes.Equal(on, body) {
		t.Fatalf("the file holds %q", on)
	}
	r := rpctest.Wait(t, second(c.StartFrame("files.read", map[string]any{"path": path}, nil)))
	if r.Error != nil || !r.Framed || !bytes.Equal(r.Bytes, body) || string(r.Result) != `{"data":"","eof":true,"size":`+strconv.Itoa(len(body))+`}` {
		t.Fatalf("files.read as a frame: %+v %q", r, r.Bytes)
	}
	// The same connection still takes lines, and answers them as the spec does.
	var line struct {
		Data rpc.Bytes `json:"data"`
	}
	c.Must(t, "files.read", map[string]any{"path": path}, &line)
	if !bytes.Equal(line.Data, body) {
		t.Fatalf("files.read as a line: %q", line.Data)
	}
}

func TestAFramedCallHasTheMethodsChecksAndErrors(t *testing.T) {
	c := framed(t)
	missing := filepath.Join(t.TempDir(), "missing")
	for _, call := range []struct {
		method string
		params map[string]any
	}{
		{"files.read", map[string]any{"path": missing}},
		{"files.read", map[string]any{"path": missing, "length": 512<<10 + 1}},
		{"files.read", map[string]any{"path": "relative"}},
		{"tar.pull.read", map[string]any{"id": "pull9"}},
	} {
		asLine := c.Fails(t, call.method, call.params)
		asFrame := rpctest.Wait(t, second(c.StartFrame(call.method, call.params, nil)))
		if asFrame.Framed || asFrame.Error == nil || *asFrame.Error != *asLine {
			t.Fatalf("%s %v: as a frame %+v, as a line %+v", call.method, call.params, asFrame.Error, asLine)
		}
	}
}

func TestABadFrameGetsItsErrorAndTheConnectionGoesOn(t *testing.T) {
	c := framed(t)
	path := filepath.Join(t.TempDir(), "f")
	for _, bad := range []struct {
		method string
		params map[string]any
		bytes  []byte
		kind   string
		words  string
	}{
		{"ping", nil, []byte("x"), "invalid", "takes no bytes"},
		{"files.write", map[string]any{"path": path, "data": "eA=="}, []byte("x"), "invalid", `data as ""`},
		{"files.write", map[string]any{"path": path, "data": ""}, make([]byte, rpc.MaxFrameBytes+1), "limit", "1 MiB"},
	} {
		r := rpctest.Wait(t, second(c.StartFrame(bad.method, bad.params, bad.bytes)))
		if r.Error == nil || r.Error.Data.Kind != bad.kind || !strings.Contains(r.Error.Message, bad.words) {
			t.Fatalf("%s with %d bytes: %+v", bad.method, len(bad.bytes), r.Error)
		}
	}
	if _, err := os.Stat(path); err == nil {
		t.Fatal("a refused frame wrote the file")
	}
	c.Must(t, "ping", nil, nil)
}

func TestFramedWritesInFlightToAPushKeepTheirOrder(t *testing.T) {
	c := framed(t)
	src := t.TempDir()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for i := range 20 {
		body := bytes.Repeat([]byte{byte('a' + i)}, 3000+i*517)
		tw.WriteHeader(&tar.Header{Name: "f" + strconv.Itoa(i), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write(body)
		os.WriteFile(filepath.Join(src, "f"+strconv.Itoa(i)), body, 0o644)
	}
	tw.Close()
	archive := buf.Bytes()

	dst := filepath.Join(t.TempDir(), "dst")
	var id struct{ ID string }
	c.Must(t, "tar.push.begin", map[string]any{"path": dst}, &id)
	// Every write sent before any reply is read: small chunks, so many are in flight at once.
	var replies []<-chan rpctest.Reply
	for at := 0; at < len(archive); at += 1000 {
		replies = append(replies, second(c.StartFrame("tar.push.write", map[string]any{"id": id.ID, "data": ""}, archive[at:min(at+1000, len(archive))])))
	}
	for _, ch := range replies {
		if r := rpctest.Wait(t, ch); r.Error != nil {
			t.Fatal(r.Error)
		}
	}
	var end struct{ Entries int }
	c.Must(t, "tar.push.end", map[string]any{"id": id.ID}, &end)
	if end.Entries != 20 {
		t.Fatalf("the push extracted %d entries", end.Entries)
	}
	for i := range 20 {
		want, _ := os.ReadFile(filepath.Join(src, "f"+strconv.Itoa(i)))
		if got, _ := os.ReadFile(filepath.Join(dst, "f"+strconv.Itoa(i))); !bytes.Equal(got, want) {
			t.Fatalf("f%d holds %d bytes, not its own %d", i, len(got), len(want))
		}
	}
}

func TestFramedReadsAheadOnAPullComeInTheirOrder(t *testing.T) {
	c := framed(t)
	dir := t.TempDir()
	for i := range 10 {
		os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), bytes.Repeat([]byte{byte('0' + i)}, 9000+i*1000), 0o644)
	}
	pull := func(ahead int) []byte {
		var id struct{ ID string }
		c.Must(t, "tar.pull.begin", map[string]any{"path": dir}, &id)
		defer c.Must(t, "tar.pull.end", map[string]any{"id": id.ID}, nil)
		var out []byte
		for {
			// ahead reads sent before any reply is read; the replies are the archive's next
			// chunks in the order the reads were sent.
			var replies []<-chan rpctest.Reply
			for range ahead {
				replies = append(replies, second(c.StartFrame("tar.pull.read", map[string]any{"id": id.ID, "maxBytes": 4096}, nil)))
			}
			eof := false
			for _, ch := range replies {
				r := rpctest.Wait(t, ch)
				if r.Error != nil || !r.Framed {
					t.Fatalf("tar.pull.read: %+v", r)
				}
				out = append(out, r.Bytes...)
				eof = eof || strings.Contains(string(r.Result), `"eof":true`)
			}
			if eof {
				return out
			}
		}
	}
	one, ahead := pull(1), pull(8)
	if !bytes.Equal(one, ahead) {
		t.Fatalf("reads ahead gave %d bytes, other than the %d read one at a time", len(ahead), len(one))
	}
	n := 0
	for tr := tar.NewReader(bytes.NewReader(ahead)); ; n++ {
		if _, err := tr.Next(); err != nil {
			break
		}
	}
	if n != 10 {
		t.Fatalf("the archive holds %d entries", n)
	}
}

func TestHelloRefusesAFrameFormatBelowOne(t *testing.T) {
	c := connect(t)
	if e := c.Fails(t, "hello", map[string]any{"frames": 0}); e.Data.Kind != "invalid" {
		t.Fatalf("frames 0: %+v", e)
	}
}

func second(_ int, ch <-chan rpctest.Reply) <-chan rpctest.Reply { return ch }
