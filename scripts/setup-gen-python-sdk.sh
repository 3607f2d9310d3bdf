#!/usr/bin/env bash
# gen-python-sdk: Pulumi's own Python code generator (pkg/codegen/python, of the pkg/v3 the CLI is
# built from) behind a small program, scripts/toolchain/pulumi-python-sdk/main.go. The CLI's
# `package gen-sdk --language python` asks the Python language host, which cannot be built here.
# Cached outside the work tree by its sources. Prints the binary's path. Exit 10: already built.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

MOD="$ROOT/scripts/toolchain/pulumi-python-sdk"
version="$(sed -n 's#^require github.com/pulumi/pulumi/pkg/v3 \(v[0-9.]*\)$#\1#p' "$MOD/go.mod")"
key="$(cat "$MOD/go.mod" "$MOD/go.sum" "$MOD/main.go" | sha256sum | cut -c1-12)"
BIN="$AGENTRUN_CACHE/gen-python-sdk-$version-$key/gen-python-sdk"
[ -x "$BIN" ] && { echo "$BIN"; exit 10; }

command -v go >/dev/null || die "Go is not installed; install Go 1.25 or later and run this again"
mkdir -p "$(dirname "$BIN")"
say "building gen-python-sdk (Pulumi's Python code generator, pkg/v3 $version)"
(cd "$MOD" && CGO_ENABLED=0 GOFLAGS=-mod=mod go build -trimpath -ldflags "-s -w" -o "$BIN.partial" .) \
  || die "gen-python-sdk did not build; check that the Go module proxy answers (go env GOPROXY)"
mv "$BIN.partial" "$BIN"
echo "$BIN"
