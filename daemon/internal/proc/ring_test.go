package proc

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// The ring keeps exactly the last limit bytes of what was written, in order, however it is fed.
func TestRingKeepsTheLastBytesInOrder(t *testing.T) {
	for _, limit := range []int{1, 7, 4096, 10000} {
		r := newRing(limit)
		var all []byte
		for i := 0; i < 300; i++ {
			chunk := make([]byte, rand.IntN(3*limit/2+2))
			for j := range chunk {
				chunk[j] = byte(rand.IntN(256))
			}
			r.write(chunk)
			all = append(all, chunk...)
			want := all[max(0, len(all)-limit):]
			got := make([]byte, limit)
			n := r.copyOut(got, r.start())
			if r.size != int64(len(all)) || !bytes.Equal(got[:n], want) {
				t.Fatalf("limit %d after %d bytes: kept %d bytes that differ from the last written", limit, len(all), n)
			}
		}
		if limit > 64 {
			r.setLimit(64)
			got := make([]byte, 64)
			n := r.copyOut(got, r.start())
			if n != 64 || !bytes.Equal(got, all[len(all)-64:]) {
				t.Fatalf("a narrowed ring lost its newest bytes")
			}
		}
	}
}
