package methods

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"agentrun.dev/computerd/internal/files"
)

// serveLines feeds prepared request lines to one connection and waits for as many replies,
// so a profile holds the daemon's own work (no client encoding).
func serveLines(b *testing.B, lines [][]byte) {
	b.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- newDaemon().Serve(context.Background(), inR, outW)
		outW.Close()
	}()
	go func() {
		for _, l := range lines {
			inW.Write(l)
		}
		inW.Close()
	}()
	r := bufio.NewReaderSize(outR, 1<<20)
	for range lines {
		line, err := r.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			_, err = r.ReadSlice('\n')
		}
		if err != nil {
			b.Fatal(err)
		}
		if len(line) > 0 && len(line) < 200 && !containsResult(line) {
			b.Fatalf("error reply: %s", line)
		}
	}
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

func containsResult(line []byte) bool {
	for i := 0; i+8 <= len(line); i++ {
		if string(line[i:i+8]) == `"result"` {
			return true
		}
	}
	return false
}

const benchChunks = 32 // 16 MiB in 512 KiB chunks

// BenchmarkFilesWrite is files.write of 512 KiB chunks at their offsets, as writeFile sends them.
func BenchmarkFilesWrite(b *testing.B) {
	path := filepath.Join(b.TempDir(), "f")
	data := make([]byte, files.MaxChunk)
	for i := range data {
		data[i] = byte(i * 7)
	}
	enc := base64.StdEncoding.EncodeToString(data)
	lines := make([][]byte, benchChunks)
	for i := range lines {
		lines[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"files.write","params":{"path":%q,"data":"%s","offset":%d}}`+"\n", i+1, path, enc, i*files.MaxChunk)
	}
	b.SetBytes(benchChunks * files.MaxChunk)
	for b.Loop() {
		serveLines(b, lines)
	}
}

// BenchmarkFilesRead is files.read of 512 KiB chunks by offset, as readFile asks for them.
func BenchmarkFilesRead(b *testing.B) {
	path := filepath.Join(b.TempDir(), "f")
	c := connectB(b)
	data := make([]byte, files.MaxChunk)
	for i := 0; i < benchChunks; i++ {
		c.Call(b.Context(), "files.write", map[string]any{"path": path, "data": data, "offset": i * files.MaxChunk}, nil)
	}
	lines := make([][]byte, benchChunks)
	for i := range lines {
		lines[i] = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"files.read","params":{"path":%q,"offset":%d}}`+"\n", i+1, path, i*files.MaxChunk)
	}
	b.SetBytes(benchChunks * files.MaxChunk)
	for b.Loop() {
		serveLines(b, lines)
	}
}

// BenchmarkTarPush is a tree of 200 files of 80 KiB pushed in 512 KiB chunks, each write
// waiting for its reply as pushTar does.
func BenchmarkTarPush(b *testing.B) {
	var archive bytes.Buffer
	tw := tar.NewWriter(&archive)
	body := make([]byte, 80<<10)
	for i := 0; i < 200; i++ {
		tw.WriteHeader(&tar.Header{Name: fmt.Sprintf("d%d/f%d", i%10, i), Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg})
		tw.Write(body)
	}
	tw.Close()
	c := connectB(b)
	b.SetBytes(int64(archive.Len()))
	for b.Loop() {
		var id struct{ ID string }
		c.Must(b, "tar.push.begin", map[string]any{"path": filepath.Join(b.TempDir(), "t")}, &id)
		for data := archive.Bytes(); len(data) > 0; {
			n := min(len(data), files.MaxChunk)
			c.Must(b, "tar.push.write", map[string]any{"id": id.ID, "data": data[:n]}, nil)
			data = data[n:]
		}
		c.Must(b, "tar.push.end", map[string]any{"id": id.ID}, nil)
	}
}
