#!/usr/bin/env bash
# The Pulumi CLI, built from Go modules (no download of a release binary is possible here):
# the CLI from scripts/toolchain/pulumi-cli, the YAML language host from
# scripts/toolchain/pulumi-yaml (it needs an older pkg/v3, so it is its own module).
# Prints the folder that holds the binaries. Exit 10: already built.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PULUMI_VERSION=v3.248.0
YAML_VERSION=v1.25.0
TOOLS="$ROOT/scripts/toolchain"
# The key holds the tools modules' go.sum too, so a changed pin builds anew beside the old one.
key="$(cat "$TOOLS"/pulumi-cli/go.sum "$TOOLS"/pulumi-yaml/go.sum | sha256sum | cut -c1-12)"
BIN="$AGENTRUN_CACHE/pulumi-$PULUMI_VERSION-yaml-$YAML_VERSION-$key/bin"

built() {
  [ -x "$BIN/pulumi" ] && [ -x "$BIN/pulumi-language-yaml" ] \
    && [ "$("$BIN/pulumi" version 2>/dev/null)" = "$PULUMI_VERSION" ]
}
built && { echo "$BIN"; exit 10; }

# Set-ups running at once (several work trees, CI) share one build: the others wait for it.
mkdir -p "$(dirname "$BIN")"
exec 9>"$(dirname "$BIN")/.lock"
if ! flock -n 9; then
  say "another set-up is building the Pulumi CLI; waiting for it"
  flock 9
  built && { echo "$BIN"; exit 10; }
fi

command -v go >/dev/null || die "Go is not installed; install Go 1.25 or later and run this again"
rm -rf "$BIN.partial" && mkdir -p "$BIN.partial"
export CGO_ENABLED=0 GOFLAGS=-mod=mod
say "building the Pulumi CLI $PULUMI_VERSION and pulumi-language-yaml $YAML_VERSION from Go modules (several minutes the first time)"
# The two builds run side by side: each one's single-threaded link runs beside the other's compiles.
(cd "$TOOLS/pulumi-cli" && go build -trimpath -o "$BIN.partial/pulumi" \
  -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION" \
  github.com/pulumi/pulumi/pkg/v3/cmd/pulumi) &
cli=$!
(cd "$TOOLS/pulumi-yaml" && go build -trimpath -o "$BIN.partial/pulumi-language-yaml" \
  -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$YAML_VERSION" \
  github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml) &
yaml=$!
wait "$cli" || die "the Pulumi CLI did not build; check that the Go module proxy answers (go env GOPROXY)"
wait "$yaml" || die "pulumi-language-yaml did not build; check that the Go module proxy answers"
got="$("$BIN.partial/pulumi" version)"
[ "$got" = "$PULUMI_VERSION" ] || die "the built CLI says $got, not $PULUMI_VERSION"
rm -rf "$BIN" && mv "$BIN.partial" "$BIN"
echo "$BIN"
