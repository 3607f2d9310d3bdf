package trust

import (
	"testing"

	"agentrun.dev/computerd/internal/vectortest"
)

// The paths the provider's create step knows beside init (src/docker/system-trust.ts holds its
// IMAGE_ROOTS, SYSTEM_BUNDLES and TRUST_BUNDLE to test/vectors/trust-bundles.json): where the
// image's roots are moved, where a system keeps them, and init's bundle in its folder.
const vectorPath = "../../../../test/vectors/trust-bundles.json"

func TestTrustVectorsAreInitsPaths(t *testing.T) {
	paths := map[string]any{"imageRoots": ImageRoots, "systemBundles": systemBundles[1:], "bundle": Bundle}
	vectortest.Match(t, vectorPath, paths, "init's paths", "go test ./internal/egress/trust")
}
