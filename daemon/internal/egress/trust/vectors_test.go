package trust

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// The paths the provider's create step knows beside init (src/docker/system-trust.ts holds its
// IMAGE_ROOTS, SYSTEM_BUNDLES and TRUST_BUNDLE to test/vectors/trust-bundles.json): where the
// image's roots are moved, where a system keeps them, and init's bundle in its folder.
const vectorPath = "../../../../test/vectors/trust-bundles.json"

func TestTrustVectorsAreInitsPaths(t *testing.T) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", " ")
	if err := enc.Encode(map[string]any{"imageRoots": ImageRoots, "systemBundles": systemBundles[1:], "bundle": Bundle}); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_VECTORS") == "1" {
		if err := os.WriteFile(vectorPath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	on, err := os.ReadFile(vectorPath)
	if err != nil || !bytes.Equal(on, b.Bytes()) {
		t.Fatalf("test/vectors/trust-bundles.json is not init's paths (%v): run UPDATE_VECTORS=1 go test ./internal/egress/trust", err)
	}
}
