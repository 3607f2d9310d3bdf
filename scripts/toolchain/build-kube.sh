#!/usr/bin/env bash
# The single-node Kubernetes cluster's programs, built from Go modules (no release binary can be
# downloaded on these machines), each component in its own throwaway module beside this script
# and cached by version under $AGENTRUN_CACHE, one binary at a time in each of two lanes (the
# Kubernetes programs; containerd, etcd, the CNI plugins and pause beside them), each go build
# with -p=2, so an interrupted build keeps what it finished. Every build runs at the lowest
# priority: it takes only idle CPU.
# Prints the folders as shell assignments (KUBE_BIN=..., ETCD_BIN=..., CONTAINERD_BIN=...,
# CNI_BIN=..., PAUSE_BIN=..., GVISOR_BIN=...). Exit 10: everything was already built.
# runc is Debian's package (1.1.5 in bookworm), which containerd 2.4 runs; so is runsc, under gVisor's
# shim built here.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"

KUBERNETES_VERSION=v1.37.2
ETCD_VERSION=v3.7.3
CONTAINERD_VERSION=v2.4.2
CNI_PLUGINS_VERSION=v1.10.0
GVISOR_VERSION=$(awk '$1 == "gvisor.dev/gvisor" { print $2 }' "$(dirname "$0")/gvisor/go.mod")
TOOLS="$ROOT/scripts/toolchain"

# A component's folder: its version and the hash of its module's go.mod and go.sum (and sources),
# so a changed pin builds anew beside the old one.
folder() { # <name> <version> <module dir>
  local key
  key="$(cat "$TOOLS/$3"/go.mod "$TOOLS/$3"/go.sum "$TOOLS/$3"/*.go 2>/dev/null | sha256sum | cut -c1-12)"
  echo "$AGENTRUN_CACHE/$1-$2-$key/bin"
}
KUBE_BIN="$(folder kubernetes $KUBERNETES_VERSION kubernetes)"
ETCD_BIN="$(folder etcd $ETCD_VERSION etcd)"
CONTAINERD_BIN="$(folder containerd $CONTAINERD_VERSION containerd)"
CNI_BIN="$(folder cni-plugins $CNI_PLUGINS_VERSION cni-plugins)"
PAUSE_BIN="$(folder kube-pause v1 pause)"
GVISOR_BIN="$(folder gvisor-shim "$GVISOR_VERSION" gvisor)"

KUBE_LDFLAGS="-s -w -X k8s.io/component-base/version.gitVersion=$KUBERNETES_VERSION \
  -X k8s.io/component-base/version.gitMajor=$(echo $KUBERNETES_VERSION | cut -d. -f1 | tr -d v) \
  -X k8s.io/component-base/version.gitMinor=$(echo $KUBERNETES_VERSION | cut -d. -f2) \
  -X k8s.io/component-base/version.gitTreeState=clean -X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z"
CONTAINERD_LDFLAGS="-s -w -X github.com/containerd/containerd/v2/version.Version=$CONTAINERD_VERSION"

# What to build, slowest first: <folder> <module dir> <binary> <package> [build tags] [ldflags].
targets() {
  echo "$KUBE_BIN kubernetes kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver - kube"
  echo "$KUBE_BIN kubernetes kubelet k8s.io/kubernetes/cmd/kubelet - kube"
  echo "$KUBE_BIN kubernetes kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager - kube"
  echo "$KUBE_BIN kubernetes kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler - kube"
  echo "$KUBE_BIN kubernetes kubectl k8s.io/kubernetes/cmd/kubectl - kube"
  echo "$CONTAINERD_BIN containerd containerd github.com/containerd/containerd/v2/cmd/containerd no_btrfs,no_devmapper,no_zfs containerd"
  echo "$CONTAINERD_BIN containerd containerd-shim-runc-v2 github.com/containerd/containerd/v2/cmd/containerd-shim-runc-v2 - containerd"
  echo "$CONTAINERD_BIN containerd ctr github.com/containerd/containerd/v2/cmd/ctr no_btrfs,no_devmapper,no_zfs containerd"
  echo "$ETCD_BIN etcd etcd agentrun.local/toolchain/etcd - plain"
  local plugin
  for plugin in main/bridge ipam/host-local main/loopback meta/portmap; do
    echo "$CNI_BIN cni-plugins ${plugin#*/} github.com/containernetworking/plugins/plugins/$plugin - plain"
  done
  echo "$PAUSE_BIN pause pause agentrun.local/toolchain/pause - plain"
  echo "$GVISOR_BIN gvisor containerd-shim-runsc-v1 gvisor.dev/gvisor/shim - gvisor"
}

missing() { targets | while read -r dir _ bin _; do [ -x "$dir/$bin" ] || echo "$bin"; done; }

print() {
  printf 'KUBE_BIN=%s\nETCD_BIN=%s\nCONTAINERD_BIN=%s\nCNI_BIN=%s\nPAUSE_BIN=%s\nGVISOR_BIN=%s\n' \
    "$KUBE_BIN" "$ETCD_BIN" "$CONTAINERD_BIN" "$CNI_BIN" "$PAUSE_BIN" "$GVISOR_BIN"
}

[ -z "$(missing)" ] && { print; exit 10; }

# Set-ups running at once (several work trees, CI) share one build: the others wait for it.
mkdir -p "$AGENTRUN_CACHE"
exec 9>"$AGENTRUN_CACHE/kube-build.lock"
if ! flock -n 9; then
  say "another set-up is building the cluster's programs; waiting for it"
  flock 9
  [ -z "$(missing)" ] && { print; exit 10; }
fi

command -v go >/dev/null || die "Go is not installed; install Go 1.26 or later and run this again"
export CGO_ENABLED=0 GOFLAGS="-mod=mod -p=2"
say "building the cluster's programs from Go modules: $(missing | tr '\n' ' ')(cold, kube-apiserver alone takes 10 to 45 minutes on 2 cores)"
# gVisor's shim sets its own OOM score to -999, which needs CAP_SYS_RESOURCE: on a host that
# withholds it (this one, itself a container) every gVisor Pod fails at the shim's start. So it is
# built from a vendored copy whose score is 0, containerd's own here (restrict_oom_score_adj in
# kube-up.sh: nothing may go below it), in a folder of its own.
gvisor_shim() { # <output> <package>
  local work manager rc=0
  work="$(mktemp -d /tmp/agentrun-gvisor-shim.XXXXXX)"
  cp "$TOOLS/gvisor/go.mod" "$TOOLS/gvisor/go.sum" "$work/"
  manager="$work/vendor/gvisor.dev/gvisor/pkg/shim/v1/manager.go"
  (cd "$work" && GOFLAGS= go mod vendor) || rc=1
  [ "$rc" = 0 ] && { grep -q '^	oomScoreMax = -999$' "$manager" || die "gvisor.dev/gvisor $GVISOR_VERSION no longer sets oomScoreMax = -999 in pkg/shim/v1/manager.go; look again at why scripts/toolchain/build-kube.sh changes it"; }
  [ "$rc" = 0 ] && sed -i 's/^	oomScoreMax = -999$/	oomScoreMax = 0/' "$manager"
  [ "$rc" = 0 ] && (cd "$work" && GOFLAGS=-p=2 nice -n 19 go build -mod=vendor -trimpath -ldflags "-s -w" -o "$1" "$2") || rc=1
  rm -rf "$work"
  return "$rc"
}

# lane <kube|other>: that lane's missing programs, one after another, in targets' order. The
# Kubernetes programs share one module and its build cache; the others are small and done long
# before kube-apiserver, whose link is the build's tail.
lane() {
  targets | while read -r dir module bin pkg tags flavour; do
    [ "$flavour" = kube ] && [ "$1" != kube ] && continue
    [ "$flavour" != kube ] && [ "$1" = kube ] && continue
    [ -x "$dir/$bin" ] && continue
    mkdir -p "$dir"
    case "$flavour" in
      kube) ldflags="$KUBE_LDFLAGS" ;;
      containerd) ldflags="$CONTAINERD_LDFLAGS" ;;
      *) ldflags="-s -w" ;;
    esac
    [ "$tags" = - ] && tags=""
    t0=$SECONDS
    if [ "$flavour" = gvisor ]; then
      gvisor_shim "$dir/$bin.partial" "$pkg"
    else
      (cd "$TOOLS/$module" && nice -n 19 go build -trimpath -tags "$tags" -ldflags "$ldflags" -o "$dir/$bin.partial" "$pkg")
    fi || die "$bin did not build; check that the Go module proxy answers (go env GOPROXY)"
    mv "$dir/$bin.partial" "$dir/$bin"
    say "built $bin in $((SECONDS - t0)) s ($(du -h "$dir/$bin" | cut -f1))"
  done
}
lane kube &
kube_lane=$!
lane other &
other_lane=$!
# Both lanes run to their end (one's failure leaves the other's programs built); the check below says what is missing.
wait "$kube_lane" || true
wait "$other_lane" || true
[ -z "$(missing)" ] || die "some programs are still missing: $(missing | tr '\n' ' ')"
print
