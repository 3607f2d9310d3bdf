# The test cluster's names, shared by kube-up.sh and kube-down.sh. Sourced, never run.
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
# The containerd runtime handler runsc (gVisor) is, and the RuntimeClass naming it.
KUBE_GVISOR_HANDLER=runsc
KUBE_GVISOR_CLASS=gvisor
KUBE_API_PORT=6443
KUBE_ETCD_PORT=32379
KUBE_ETCD_PEER_PORT=32380
KUBE_CONTAINERD_SOCK="$KUBE_STATE/containerd/containerd.sock"
# The image registry every node pulls the computers' image from (Debian's docker-registry), over
# TLS with a certificate of the cluster's CA, on an address of the nodes' link. The Docker engine
# pushes to it, trusting that CA through its certs.d folder.
KUBE_REGISTRY_IP=10.209.255.100
KUBE_REGISTRY="$KUBE_REGISTRY_IP:5000"
KUBE_REGISTRY_DOCKER_CERTS="/etc/docker/certs.d/$KUBE_REGISTRY"
# The nodes, by number: the first is the names above; each other one has its own name, address (on
# the same link), Pods' bridge and range, folder (its containerd, kubelet, CNI and Pods' logs) and
# cgroup root, all on this machine, joined to the one API server. The Pods' ranges are routed
# between the nodes by this machine's own routes to each bridge.
KUBE_NODES="1 2"

node_vars() { # <n>: sets NODE_N, NODE, NODE_IP, NODE_BRIDGE, NODE_POD_CIDR, NODE_DIR, NODE_SOCK, NODE_CGROUP (its cgroup root, relative), NODE_SUFFIX
  local n="$1"
  NODE_N=$n
  if [ "$n" = 1 ]; then
    NODE=$KUBE_NODE NODE_SUFFIX="" NODE_DIR=$KUBE_STATE NODE_CGROUP=""
  else
    NODE=$KUBE_NODE$n NODE_SUFFIX=-$n NODE_DIR=$KUBE_STATE/node$n NODE_CGROUP=$KUBE_NODE$n
  fi
  NODE_IP=10.209.255.$n NODE_BRIDGE=agentrun-kbr$((n - 1)) NODE_POD_CIDR=10.209.$((n - 1)).0/24
  NODE_SOCK=$NODE_DIR/containerd/containerd.sock
}
node_vars 1
# The kernel settings the kubelet sets on start; kube-up keeps their old values and kube-down
# puts them back.
KUBE_SYSCTLS="vm.overcommit_memory kernel.panic kernel.panic_on_oops"

# The programs kube-up starts, in order; kube-down stops them in reverse.
KUBE_PROCESSES="etcd kube-apiserver kube-controller-manager kube-scheduler registry containerd kubelet containerd-2 kubelet-2"

kube_pid() { # <process>: its pid when it runs, else nothing (a process killed but not yet reaped does not run)
  local pid
  pid="$(cat "$KUBE_STATE/run/$1.pid" 2>/dev/null)" || return 0
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$(ps -o stat= -p "$pid" | cut -c1)" != Z ] && echo "$pid"
  return 0
}

# kube_api <path> [curl args]: the API server, as the cluster's admin.
kube_api() {
  local path="$1"; shift
  curl -sf --max-time 5 --cacert "$KUBE_STATE/pki/ca.crt" --cert "$KUBE_STATE/pki/admin.crt" --key "$KUBE_STATE/pki/admin.key" \
    "$@" "https://127.0.0.1:$KUBE_API_PORT$path"
}

# One kube-up or kube-down at a time on the machine (several work trees share the cluster);
# KUBE_LOCKED=1 says the caller holds it (kube-up removing a cluster that did not come up whole).
kube_lock() {
  [ "${KUBE_LOCKED:-}" = 1 ] && return 0
  exec 8>"$KUBE_STATE.lock"
  flock 8
}

# The cluster's programs that run without a pid file of theirs (one left from an earlier cluster
# whose state folder is gone): found by the state folder in their command line.
kube_strays() {
  local pid name
  for pid in $(pgrep -f -- "$KUBE_STATE/" || true); do
    name="$(basename "$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | head -n1)")"
    case " etcd kube-apiserver kube-controller-manager kube-scheduler containerd kubelet " in *" $name "*) echo "$pid" ;; esac
  done
}

need_root() {
  [ "$(id -u)" = 0 ] || die "the cluster needs root (it mounts, makes links and iptables rules); run as root"
}
