# The single-node cluster's names, shared by kube-up.sh and kube-down.sh. Sourced, never run.
# One cluster per machine: its state folder and ports are the machine's, not a work tree's.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KUBE_STATE="${AGENTRUN_KUBE_STATE:-/var/lib/agentrun-kube}"
# Where kube:down keeps the stopped cluster's logs (the last cluster's alone).
KUBE_LAST_LOGS="${KUBE_STATE}.last-logs"
KUBE_NODE=agentrun-node
# The node's own address, on a link of its own so nothing outside this machine sees it (the kubelet
# refuses a loopback node IP); the Pods' bridge and range; the Services' range (no kube-proxy
# runs: only the API server's own Service address is used, in its certificate).
KUBE_LINK=agentrun-kube0
KUBE_NODE_IP=10.209.255.1
KUBE_BRIDGE=agentrun-kbr0
KUBE_POD_CIDR=10.209.0.0/24
KUBE_SERVICE_CIDR=10.209.128.0/24
KUBE_SERVICE_IP=10.209.128.1
KUBE_CNI_NETWORK=agentrun-kube
KUBE_API_PORT=6443
KUBE_ETCD_PORT=32379
KUBE_ETCD_PEER_PORT=32380
KUBE_CONTAINERD_SOCK="$KUBE_STATE/containerd/containerd.sock"
# The kernel settings the kubelet sets on start; kube-up keeps their old values and kube-down
# puts them back.
KUBE_SYSCTLS="vm.overcommit_memory kernel.panic kernel.panic_on_oops"

# The programs kube-up starts, in order; kube-down stops them in reverse.
KUBE_PROCESSES="etcd kube-apiserver kube-controller-manager kube-scheduler containerd kubelet"

kube_pid() { # <process>: its pid when it runs, else nothing
  local pid
  pid="$(cat "$KUBE_STATE/run/$1.pid" 2>/dev/null)" || return 0
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
  return 0
}

# kube_api <path> [curl args]: the API server, as the cluster's admin.
kube_api() {
  local path="$1"; shift
  curl -sf --max-time 5 --cacert "$KUBE_STATE/pki/ca.crt" --cert "$KUBE_STATE/pki/admin.crt" --key "$KUBE_STATE/pki/admin.key" \
    "$@" "https://127.0.0.1:$KUBE_API_PORT$path"
}

# One kube-up or kube-down at a time on the machine (several work trees share the cluster).
kube_lock() {
  exec 8>"$KUBE_STATE.lock"
  flock 8
}

need_root() {
  [ "$(id -u)" = 0 ] || die "the cluster needs root (it mounts, makes links and iptables rules); run as root"
}
