#!/usr/bin/env bash
# A newer Docker engine (dockerd and its docker-proxy, v28.5.2) built from Go modules, for the
# tests that need what Debian's 20.10 engine lacks (volume-subpath, Engine 26 and later). No
# release binary can be downloaded on these machines; the module beside this script pins what
# moby's own vendor.mod pins. Built static without cgo, with the tags moby's static build uses
# and the graph drivers that need cgo left out (btrfs, zfs): overlay2 and vfs remain.
# Cached by version and module hash under $AGENTRUN_CACHE, at the lowest priority, each binary
# written as .partial and renamed, so an interrupted build keeps what it finished and is never
# mistaken for a whole one. Set-ups running at once share one build. Prints DOCKERD_BIN=<folder>.
# Exit 10: it was already built. With --built it never builds: exit 10 and the folder when it is
# built, else exit 3 (how the tests ask whether the newer engine is there).
# The engine runs on the host's containerd and runc (Debian's): see test/support/second-engine.ts.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

DOCKER_VERSION=v28.5.2
MODULE="$ROOT/scripts/toolchain/dockerd"
key="$(cat "$MODULE/go.mod" "$MODULE/go.sum" | sha256sum | cut -c1-12)"
DOCKERD_BIN="$AGENTRUN_CACHE/dockerd-$DOCKER_VERSION-$key/bin"
TAGS="netgo osusergo static_build exclude_graphdriver_btrfs exclude_graphdriver_zfs"
LDFLAGS="-s -w -X github.com/docker/docker/dockerversion.Version=${DOCKER_VERSION#v} \
  -X github.com/docker/docker/dockerversion.GitCommit=v28.5.2-modules \
  -X github.com/docker/docker/dockerversion.PlatformName=agentrun-test-engine"

missing() { local bin; for bin in dockerd docker-proxy; do [ -x "$DOCKERD_BIN/$bin" ] || echo "$bin"; done; }
print() { printf 'DOCKERD_BIN=%s\n' "$DOCKERD_BIN"; }

case "${1:-}" in "" | --built) ;; *) die "usage: bash scripts/toolchain/build-dockerd.sh [--built]" ;; esac
[ -z "$(missing)" ] && { print; exit 10; }
[ "${1:-}" = --built ] && { say "dockerd $DOCKER_VERSION is not built: bash scripts/toolchain/build-dockerd.sh builds it"; exit 3; }

mkdir -p "$AGENTRUN_CACHE"
exec 9>"$AGENTRUN_CACHE/dockerd-build.lock"
if ! flock -n 9; then
  say "another set-up is building dockerd $DOCKER_VERSION; waiting for it"
  flock 9
  [ -z "$(missing)" ] && { print; exit 10; }
fi

command -v go >/dev/null || die "Go is not installed; install Go 1.26 or later and run this again"
export CGO_ENABLED=0 GOFLAGS="-mod=mod -p=1"
say "building dockerd $DOCKER_VERSION from Go modules: $(missing | tr '\n' ' ')(cold: about 10 to 30 minutes on 2 cores)"
mkdir -p "$DOCKERD_BIN"
for bin in dockerd docker-proxy; do
  [ -x "$DOCKERD_BIN/$bin" ] && continue
  t0=$SECONDS
  (cd "$MODULE" && nice -n 19 go build -trimpath -tags "$TAGS" -ldflags "$LDFLAGS" \
    -o "$DOCKERD_BIN/$bin.partial" "github.com/docker/docker/cmd/$bin") \
    || die "$bin did not build; check that the Go module proxy answers (go env GOPROXY)"
  mv "$DOCKERD_BIN/$bin.partial" "$DOCKERD_BIN/$bin"
  say "built $bin in $((SECONDS - t0)) s ($(du -h "$DOCKERD_BIN/$bin" | cut -f1))"
done
print
