// Writes the Python SDK of a Pulumi package schema with Pulumi's own Python code generator
// (pkg/codegen/python), as `pulumi package gen-sdk --language python` would: that command asks
// the Python language host for it, which these machines cannot build.
// Usage: gen-python-sdk <schema.json> <out folder>
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
)

func main() {
	if len(os.Args) != 3 {
		fail(fmt.Errorf("usage: gen-python-sdk <schema.json> <out folder>"))
	}
	text, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail(err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal(text, &spec); err != nil {
		fail(fmt.Errorf("%s: %w", os.Args[1], err))
	}
	// The schema refers to no other package, so a loader that finds none is enough.
	loader := schema.NewPluginLoader(nil)
	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{})
	if err != nil {
		fail(err)
	}
	if diags.HasErrors() {
		fail(diags)
	}
	files, err := python.GeneratePackage("pulumi-language-python", pkg, nil, loader)
	if err != nil {
		fail(err)
	}
	for path, body := range files {
		out := filepath.Join(os.Args[2], path)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			fail(err)
		}
		if err := os.WriteFile(out, body, 0o644); err != nil {
			fail(err)
		}
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "gen-python-sdk: %v\n", err)
	os.Exit(1)
}
