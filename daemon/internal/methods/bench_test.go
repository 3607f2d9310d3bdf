package methods

import "testing"

// BenchmarkExecRunTrue is exec.run(["true"]) on an open in-process connection; the figure
// beside docker exec is bench/exec-roundtrip.mjs.
func BenchmarkExecRunTrue(b *testing.B) {
	c := connectB(b)
	for i := 0; i < b.N; i++ {
		if err := c.Call(b.Context(), "exec.run", map[string]any{"argv": []string{"true"}}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
