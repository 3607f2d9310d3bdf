#!/usr/bin/env bash
# computerd for Linux amd64 and arm64: static (CGO_ENABLED=0), into dist/, with the version
# of package.json, so the library and the daemon it carries agree; beside it the desktop
# fixture (computerd-fixture-linux-<arch>), the test-only X client the conformance cases read,
# and the egress proxy's own binary (computerd-egress-linux-<arch>), which its image holds.
# Exit 10: both binaries already newer than every daemon source.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out="$ROOT/dist"
version="$(node -p 'require(process.argv[1]).version' "$ROOT/package.json")"
stamp="$out/computerd.version"
# Rebuilt when a daemon source is newer than the older of the two binaries (amd64, built first).
changed() {
  [ -n "$(find "$ROOT/daemon" \( -name '*.go' -o -name go.mod -o -name go.sum \) -newer "$out/computerd-linux-amd64" -print -quit)" ]
}
if [ -f "$out/computerd-linux-amd64" ] && [ -f "$out/computerd-linux-arm64" ] \
   && [ -f "$out/computerd-fixture-linux-amd64" ] && [ -f "$out/computerd-fixture-linux-arm64" ] \
   && [ -f "$out/computerd-egress-linux-amd64" ] && [ -f "$out/computerd-egress-linux-arm64" ] \
   && [ "$(cat "$stamp" 2>/dev/null)" = "$version" ] && ! changed; then
  exit 10
fi
mkdir -p "$out"
for arch in amd64 arm64; do
  say "building computerd $version for linux/$arch"
  (cd "$ROOT/daemon" && CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath \
    -ldflags "-s -w -X agentrun.dev/computerd/internal/version.Version=$version" \
    -o "$out/computerd-linux-$arch.partial" ./cmd/computerd)
  mv "$out/computerd-linux-$arch.partial" "$out/computerd-linux-$arch"
  (cd "$ROOT/daemon" && CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath \
    -ldflags "-s -w -X agentrun.dev/computerd/internal/version.Version=$version" \
    -o "$out/computerd-egress-linux-$arch.partial" ./cmd/computerd-egress)
  mv "$out/computerd-egress-linux-$arch.partial" "$out/computerd-egress-linux-$arch"
  (cd "$ROOT/daemon" && CGO_ENABLED=0 GOOS=linux GOARCH=$arch go build -trimpath -ldflags "-s -w" \
    -o "$out/computerd-fixture-linux-$arch.partial" ./cmd/fixture)
  mv "$out/computerd-fixture-linux-$arch.partial" "$out/computerd-fixture-linux-$arch"
done
echo "$version" > "$stamp"
