#!/usr/bin/env bash
# npm run kube:up: a two-node Kubernetes cluster on this machine, for the Kubernetes provider's
# tests (docs/kubernetes-cluster.md). Builds what is not cached, makes certificates on the spot,
# starts etcd, the API server on 127.0.0.1, the controller manager, the scheduler, and for each
# node a containerd of its own, its CNI bridge and its kubelet, each in the background with its log
# and pid under the state folder; imports the computers' image and a pause image into each node's
# containerd; writes dist/kubeconfig and dist/kube.json; waits until every node is Ready and runs a Pod.
# A no-op (but for dist/) when the cluster already answers. npm run kube:down undoes it all.
# `kube-up.sh --running` starts nothing and says by its exit status whether the cluster answers
# (npm test stops the cluster at its end only when it was not running before).
set -euo pipefail
. "$(dirname "$0")/kube-lib.sh"
cd "$ROOT"
need_root
PKI="$KUBE_STATE/pki"

ready_node() { # [node]: that node, else every node
  local n nodes="${1:-}"
  [ -n "$nodes" ] || for n in $KUBE_NODES; do node_vars "$n"; nodes="$nodes $NODE"; done
  for n in $nodes; do
    kube_api "/api/v1/nodes/$n" 2>/dev/null \
      | node -e 'const n=JSON.parse(require("fs").readFileSync(0,"utf8"));process.exit(n.status.conditions.some(c=>c.type==="Ready"&&c.status==="True")?0:1)' 2>/dev/null || return 1
  done
}

all_running() {
  local p
  for p in $KUBE_PROCESSES; do [ -n "$(kube_pid "$p")" ] || return 1; done
}

case "${1:-}" in
  --running) all_running && ready_node; exit ;;
  "") ;;
  *) die "kube-up.sh takes no argument but --running (it was given $1)" ;;
esac
kube_lock
t_all=$SECONDS

# wait_for <what> <seconds> <process whose log tells why> <command...>
wait_for() {
  local what="$1" limit="$2" proc="$3" t0=$SECONDS; shift 3
  until "$@" >/dev/null 2>&1; do
    if [ $((SECONDS - t0)) -ge "$limit" ]; then
      tail -n 20 "$KUBE_STATE/log/$proc.log" 2>/dev/null | sed 's/^/  | /' >&2
      die "$what within $limit s; the lines above are the end of $KUBE_STATE/log/$proc.log"
    fi
    if [ -n "$proc" ] && [ -z "$(kube_pid "$proc")" ]; then
      tail -n 20 "$KUBE_STATE/log/$proc.log" 2>/dev/null | sed 's/^/  | /' >&2
      die "$proc stopped; the lines above are the end of $KUBE_STATE/log/$proc.log"
    fi
    sleep 0.5
  done
}

# start <name> <program> [args...]: in its own session (an interrupted kube:up or test run
# leaves it running for kube:down), unless it already runs; never holding kube_lock's file.
start() {
  local name="$1"; shift
  [ -n "$(kube_pid "$name")" ] && return 0
  say "starting $name"
  setsid "$@" >>"$KUBE_STATE/log/$name.log" 2>&1 </dev/null 8>&- &
  echo $! >"$KUBE_STATE/run/$name.pid"
}

# Certificates: one CA signs every serving and client certificate; ECDSA P-256 keys.
cert() { # <name> <subject> <extendedKeyUsage> [subjectAltName]
  openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/$1.key" 2>/dev/null
  openssl req -new -key "$PKI/$1.key" -subj "$2" -out "$PKI/$1.csr"
  { echo "basicConstraints=CA:FALSE"; echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$3"; [ -z "${4:-}" ] || echo "subjectAltName=$4"; } >"$PKI/$1.ext"
  openssl x509 -req -in "$PKI/$1.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial -days 3650 -sha256 \
    -extfile "$PKI/$1.ext" -out "$PKI/$1.crt" 2>/dev/null
  rm -f "$PKI/$1.csr" "$PKI/$1.ext"
}

kubeconfig() { # <file> <certificate name> <user>
  cat >"$1" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: agentrun-kube
  cluster:
    server: https://127.0.0.1:$KUBE_API_PORT
    certificate-authority-data: $(base64 -w0 "$PKI/ca.crt")
users:
- name: $3
  user:
    client-certificate-data: $(base64 -w0 "$PKI/$2.crt")
    client-key-data: $(base64 -w0 "$PKI/$2.key")
contexts:
- name: agentrun-kube
  context:
    cluster: agentrun-kube
    user: $3
current-context: agentrun-kube
EOF
  chmod 600 "$1"
}

pki() {
  [ -f "$PKI/done" ] && return 0
  say "making the cluster's certificates (openssl)"
  rm -rf "$PKI" && mkdir -p "$PKI" && chmod 700 "$PKI"
  openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/ca.key" 2>/dev/null
  openssl req -x509 -new -key "$PKI/ca.key" -sha256 -days 3650 -subj "/CN=agentrun-kube-ca" -out "$PKI/ca.crt" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign"
  cert apiserver "/CN=kube-apiserver" serverAuth \
    "IP:127.0.0.1,IP:$KUBE_NODE_IP,IP:$KUBE_SERVICE_IP,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local"
  cert apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
  cert admin "/O=system:masters/CN=agentrun-admin" clientAuth
  cert controller-manager "/CN=system:kube-controller-manager" clientAuth
  cert scheduler "/CN=system:kube-scheduler" clientAuth
  openssl ecparam -name prime256v1 -genkey -noout -out "$PKI/sa.key" 2>/dev/null
  openssl ec -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  kubeconfig "$KUBE_STATE/admin.kubeconfig" admin agentrun-admin
  kubeconfig "$KUBE_STATE/controller-manager.kubeconfig" controller-manager system:kube-controller-manager
  kubeconfig "$KUBE_STATE/scheduler.kubeconfig" scheduler system:kube-scheduler
  touch "$PKI/done"
}

node_pki() { # a node's own: its kubelet's client certificate (system:node:<name>) and serving one
  [ -f "$KUBE_STATE/kubelet$NODE_SUFFIX.kubeconfig" ] && return 0
  cert "kubelet-client$NODE_SUFFIX" "/O=system:nodes/CN=system:node:$NODE" clientAuth
  cert "kubelet$NODE_SUFFIX" "/CN=$NODE" serverAuth "IP:$NODE_IP,DNS:$NODE"
  kubeconfig "$KUBE_STATE/kubelet$NODE_SUFFIX.kubeconfig" "kubelet-client$NODE_SUFFIX" "system:node:$NODE"
}

link_address() { # <address>: on the link every node's address is on
  if ! ip link show "$KUBE_LINK" >/dev/null 2>&1; then
    # A bridge with no ports: this kernel has no dummy links.
    ip link add "$KUBE_LINK" type bridge
    ip link set "$KUBE_LINK" up
  fi
  case "$(ip -o addr show dev "$KUBE_LINK")" in *" $1/"*) ;; *) ip addr add "$1/32" dev "$KUBE_LINK" ;; esac
}
node_link() { link_address "$NODE_IP"; }

# The registry: its certificate from the cluster's CA, its store under the state folder; the
# Docker engine told to trust the CA for it alone.
registry_up() {
  command -v docker-registry >/dev/null || die "docker-registry is not installed; run npm run setup -- --tests (it installs Debian's docker-registry)"
  link_address "$KUBE_REGISTRY_IP"
  [ -f "$PKI/registry.crt" ] || cert registry "/CN=agentrun-kube-registry" serverAuth "IP:$KUBE_REGISTRY_IP"
  mkdir -p "$KUBE_STATE/registry" "$KUBE_REGISTRY_DOCKER_CERTS"
  install -m 0644 "$PKI/ca.crt" "$KUBE_REGISTRY_DOCKER_CERTS/ca.crt"
  cat >"$KUBE_STATE/registry/config.yml" <<EOF
version: 0.1
log: { level: warn }
storage:
  filesystem: { rootdirectory: $KUBE_STATE/registry/store }
  delete: { enabled: true }
http:
  addr: $KUBE_REGISTRY
  tls: { certificate: $PKI/registry.crt, key: $PKI/registry.key }
EOF
  start registry docker-registry serve "$KUBE_STATE/registry/config.yml"
  wait_for "the registry did not answer" 30 registry curl -sf --max-time 2 --cacert "$PKI/ca.crt" "https://$KUBE_REGISTRY/v2/"
}

# The digest the registry holds for <repository>:<tag>, or nothing.
registry_digest() {
  curl -sfI --max-time 5 --cacert "$PKI/ca.crt" \
    -H "Accept: application/vnd.docker.distribution.manifest.v2+json, application/vnd.oci.image.manifest.v1+json" \
    "https://$KUBE_REGISTRY/v2/$1/manifests/$2" | tr -d '\r' | awk -F': ' 'tolower($1) == "docker-content-digest" { print $2 }'
}

# The computers' image, pushed from the Docker engine once; every node pulls it from there.
push_base_image() {
  local repo="${BASE_IMAGE%%:*}" tag="${BASE_IMAGE#*:}"
  [ -n "$(registry_digest "$repo" "$tag")" ] && return 0
  say "pushing $BASE_IMAGE to the cluster's registry ($KUBE_REGISTRY)"
  docker tag "$BASE_IMAGE" "$KUBE_REGISTRY/$BASE_IMAGE"
  docker push -q "$KUBE_REGISTRY/$BASE_IMAGE" >/dev/null || die "docker push to $KUBE_REGISTRY failed"
  docker rmi "$KUBE_REGISTRY/$BASE_IMAGE" >/dev/null
}

control_plane() {
  start etcd "$ETCD_BIN/etcd" --name agentrun-kube --data-dir "$KUBE_STATE/etcd" \
    --listen-client-urls "http://127.0.0.1:$KUBE_ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$KUBE_ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$KUBE_ETCD_PEER_PORT" --initial-advertise-peer-urls "http://127.0.0.1:$KUBE_ETCD_PEER_PORT" \
    --initial-cluster "agentrun-kube=http://127.0.0.1:$KUBE_ETCD_PEER_PORT"
  wait_for "etcd did not answer" 60 etcd curl -sf --max-time 2 "http://127.0.0.1:$KUBE_ETCD_PORT/health"
  start kube-apiserver "$KUBE_BIN/kube-apiserver" --etcd-servers "http://127.0.0.1:$KUBE_ETCD_PORT" \
    --bind-address 127.0.0.1 --secure-port "$KUBE_API_PORT" --advertise-address "$KUBE_NODE_IP" --cert-dir "$KUBE_STATE/apiserver" \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" --client-ca-file "$PKI/ca.crt" \
    --service-cluster-ip-range "$KUBE_SERVICE_CIDR" --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
    --authorization-mode Node,RBAC --enable-admission-plugins NodeRestriction --profiling=false \
    --kubelet-client-certificate "$PKI/apiserver-kubelet-client.crt" --kubelet-client-key "$PKI/apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$PKI/ca.crt" --kubelet-preferred-address-types InternalIP
  wait_for "the API server was not ready" 180 kube-apiserver kube_api /readyz
  start kube-controller-manager "$KUBE_BIN/kube-controller-manager" --kubeconfig "$KUBE_STATE/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$KUBE_STATE/controller-manager.kubeconfig" --authorization-kubeconfig "$KUBE_STATE/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --cert-dir "$KUBE_STATE/controller-manager" --leader-elect=false --profiling=false \
    --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" --use-service-account-credentials \
    --cluster-signing-cert-file "$PKI/ca.crt" --cluster-signing-key-file "$PKI/ca.key" --service-cluster-ip-range "$KUBE_SERVICE_CIDR"
  start kube-scheduler "$KUBE_BIN/kube-scheduler" --kubeconfig "$KUBE_STATE/scheduler.kubeconfig" \
    --authentication-kubeconfig "$KUBE_STATE/scheduler.kubeconfig" --authorization-kubeconfig "$KUBE_STATE/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --cert-dir "$KUBE_STATE/scheduler" --leader-elect=false --profiling=false
}

# containerd of its own: root, state, sockets and the Pods' network namespaces all under the
# state folder, so the Docker engine's containerd is never touched.
containerd_up() {
  local c="$NODE_DIR/containerd"
  mkdir -p "$c" "$NODE_DIR/cni/net.d"
  cat >"$c/config.toml" <<EOF
version = 3
root = "$c/root"
state = "$c/state"
disabled_plugins = ["io.containerd.nri.v1.nri"]

[grpc]
  address = "$NODE_SOCK"

[ttrpc]
  address = "$NODE_SOCK.ttrpc"

[plugins."io.containerd.internal.v1.opt"]
  path = "$c/opt"

[plugins."io.containerd.cri.v1.runtime"]
  netns_mounts_under_state_dir = true
  # This machine withholds CAP_SYS_RESOURCE, so no process may lower its OOM score below
  # containerd's own; the kubelet's -998 for the pause container would fail every sandbox.
  restrict_oom_score_adj = true
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        BinaryName = "$(command -v runc)"
        SystemdCgroup = false
    # gVisor (RuntimeClass gvisor): gVisor's own shim, which runs a Pod's containers in one
    # sandbox (runc's shim with runsc as its binary cannot: docs/gvisor.md says why), its runsc
    # flags in runsc.toml.
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.$KUBE_GVISOR_HANDLER]
      runtime_type = "io.containerd.runsc.v1"
      runtime_path = "$GVISOR_BIN/containerd-shim-runsc-v1"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.$KUBE_GVISOR_HANDLER.options]
        TypeUrl = "io.containerd.runsc.v1.options"
        ConfigPath = "$c/runsc.toml"
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["$CNI_BIN"]
    conf_dir = "$NODE_DIR/cni/net.d"

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".registry]
    config_path = "$c/certs.d"
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = "$PAUSE_IMAGE"
EOF
  # runsc's flags: the platform and network that run here (docs/gvisor.md).
  cat >"$c/runsc.toml" <<EOF
binary_name = "$(command -v runsc)"
root = "$c/runsc"
[runsc_config]
  platform = "ptrace"
  network = "none"
EOF
  # The Pods' network: a bridge with masquerade out, addresses from the range host-local keeps.
  cat >"$NODE_DIR/cni/net.d/10-agentrun-kube.conflist" <<EOF
{
  "cniVersion": "1.0.0",
  "name": "$KUBE_CNI_NETWORK",
  "plugins": [
    {
      "type": "bridge", "bridge": "$NODE_BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
      "ipam": { "type": "host-local", "dataDir": "$NODE_DIR/cni/ipam", "ranges": [[{ "subnet": "$NODE_POD_CIDR" }]], "routes": [{ "dst": "0.0.0.0/0" }] }
    },
    { "type": "portmap", "capabilities": { "portMappings": true } }
  ]
}
EOF
  # The cluster's registry, trusted by the cluster's CA alone.
  mkdir -p "$c/certs.d/$KUBE_REGISTRY"
  cat >"$c/certs.d/$KUBE_REGISTRY/hosts.toml" <<EOF
server = "https://$KUBE_REGISTRY"
[host."https://$KUBE_REGISTRY"]
  capabilities = ["pull", "resolve"]
  ca = "$PKI/ca.crt"
EOF
  PATH="$CONTAINERD_BIN:$PATH" start "containerd$NODE_SUFFIX" "$CONTAINERD_BIN/containerd" --config "$c/config.toml"
  wait_for "$NODE's containerd did not answer" 60 "containerd$NODE_SUFFIX" ctr version
}

# The node's containerd (node_vars); each ctr call also warns that cgroup v1 is deprecated: said
# once in the docs, not every time.
ctr() { "$CONTAINERD_BIN/ctr" --address "$NODE_SOCK" --namespace k8s.io "$@" 2> >(grep -v "support for cgroup v1 is deprecated" >&2); }

# import <image ref in containerd> <what to save from Docker>: pinned, so the kubelet's image
# garbage collection never removes it (nothing could pull it back).
import() {
  ctr images ls -q "name==$1" | grep -q . && return 0
  say "importing $2 into $NODE's containerd"
  docker save "$2" | ctr images import --local - >/dev/null
  ctr images ls -q "name==$1" | grep -q . || die "$2 was imported but containerd does not list $1"
  ctr images label "$1" io.cri-containerd.pinned=pinned >/dev/null
}

images() {
  if ! ctr images ls -q "name==$PAUSE_IMAGE" | grep -q .; then
    # The pause image: the static program alone, made an image by import.
    local work
    work="$(mktemp -d /tmp/agentrun-kube-pause.XXXXXX)"
    cp "$PAUSE_BIN/pause" "$work/pause"
    tar -C "$work" -cf "$work/rootfs.tar" pause
    docker import -c 'ENTRYPOINT ["/pause"]' "$work/rootfs.tar" "$PAUSE_IMAGE" >/dev/null
    rm -rf "$work"
    import "$PAUSE_IMAGE" "$PAUSE_IMAGE"
    docker rmi "$PAUSE_IMAGE" >/dev/null
  fi
}

# The egress proxy's image: this work tree's computerd-egress and the roots it verifies an opened
# host's TLS against, made an image by import from the provider's own recipe
# (src/kits/image/egress-proxy.ts, the Docker provider's image too), under the name the Kubernetes
# provider gives a sidecar by default (agentrun-egress:<the recipe's sha256, 16 digits>). Each work
# tree's proxy is its own image.
egress_image() {
  local daemon=dist/computerd-egress-linux-amd64 tag work
  [ -f "$daemon" ] || return 0
  work="$(mktemp -d /tmp/agentrun-kube-egress.XXXXXX)"
  tag="$(node --input-type=module -e '
    const { createHash } = await import("node:crypto");
    const { readFileSync, writeFileSync } = await import("node:fs");
    const { proxyImageTagOf, proxyTar } = await import(process.argv[1] + "/dist/src/kits/image/egress-proxy.js");
    const proxy = readFileSync(process.argv[2]);
    writeFileSync(process.argv[3], proxyTar(proxy));
    console.log(proxyImageTagOf(createHash("sha256").update(proxy).digest("hex")));' "$ROOT" "$daemon" "$work/rootfs.tar")" \
    || { rm -rf "$work"; die "the egress proxy's image could not be written from $daemon (is dist/ built? npm run setup)"; }
  if ! ctr images ls -q "name==docker.io/library/$tag" | grep -q . && ! docker image inspect "$tag" >/dev/null 2>&1; then
    docker import -c 'ENTRYPOINT ["/computerd-egress"]' "$work/rootfs.tar" "$tag" >/dev/null
  fi
  rm -rf "$work"
  import "docker.io/library/$tag" "$tag"
}

kubelet_up() {
  local k="$NODE_DIR/kubelet" h
  mkdir -p "$k" "$NODE_DIR/pod-logs"
  # A node but the first keeps its Pods under a cgroup root of its own, made in every hierarchy
  # (the kubelet refuses a root that is missing); its cpuset takes its parent's CPUs and memory.
  if [ -n "$NODE_CGROUP" ]; then
    for h in /sys/fs/cgroup/*/; do
      [ -L "${h%/}" ] && continue
      mkdir -p "$h$NODE_CGROUP"
      if [ -f "$h/cpuset.cpus" ]; then
        cat "$h/cpuset.cpus" >"$h$NODE_CGROUP/cpuset.cpus"
        cat "$h/cpuset.mems" >"$h$NODE_CGROUP/cpuset.mems"
      fi
    done
  fi
  # The kubelet sets these kernel settings on start; kube-down puts the old values back.
  [ -f "$KUBE_STATE/sysctl.before" ] || sysctl $KUBE_SYSCTLS | sed 's/ //g' >"$KUBE_STATE/sysctl.before"
  # The iptables chains there before the kubelet and the CNI plugins made theirs: kube-down
  # removes only the others.
  [ -f "$KUBE_STATE/iptables.before" ] || for t in filter nat mangle; do
    iptables -t "$t" -S | awk -v t="$t" '$1 == "-N" { print t, $2 }'
  done >"$KUBE_STATE/iptables.before"
  [ -f "$KUBE_STATE/ip6tables.before" ] || for t in filter nat mangle; do
    ip6tables -t "$t" -S 2>/dev/null | awk -v t="$t" '$1 == "-N" { print t, $2 }'
  done >"$KUBE_STATE/ip6tables.before"
  cat >"$k/config.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# This machine's cgroups are v1 (Docker reports the cgroupfs driver).
failCgroupV1: false
cgroupDriver: cgroupfs
${NODE_CGROUP:+cgroupRoot: /$NODE_CGROUP}
containerRuntimeEndpoint: unix://$NODE_SOCK
address: $NODE_IP
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: $((10247 + NODE_N))
tlsCertFile: $PKI/kubelet$NODE_SUFFIX.crt
tlsPrivateKeyFile: $PKI/kubelet$NODE_SUFFIX.key
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: $PKI/ca.crt
authorization:
  mode: Webhook
podLogsDir: $NODE_DIR/pod-logs
failSwapOn: false
# The images were imported, not pulled: nothing may collect them, and a full disk elsewhere on a
# shared machine must not evict the tests' Pods.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard:
  memory.available: 100Mi
  nodefs.available: 1%
  imagefs.available: 1%
  nodefs.inodesFree: 1%
resolvConf: /etc/resolv.conf
EOF
  start "kubelet$NODE_SUFFIX" "$KUBE_BIN/kubelet" --config "$k/config.yaml" --kubeconfig "$KUBE_STATE/kubelet$NODE_SUFFIX.kubeconfig" \
    --root-dir "$k" --hostname-override "$NODE" --node-ip "$NODE_IP" --v 2
}

kubectl() { "$KUBE_BIN/kubectl" --kubeconfig "$KUBE_STATE/admin.kubeconfig" "$@"; }

# The image the computers run, by its digest in the cluster's registry.
base_image_ref() {
  local digest
  digest="$(registry_digest "${BASE_IMAGE%%:*}" "${BASE_IMAGE#*:}")"
  [ -n "$digest" ] || die "the cluster's registry has no $BASE_IMAGE; run npm run kube:down and npm run kube:up"
  echo "$KUBE_REGISTRY/${BASE_IMAGE%%:*}@$digest"
}

# The control plane serves: a new namespace gets its service account (the controller manager's
# work) and a Pod there is placed on a node (the scheduler's). Processes that run are not enough: a
# controller manager or scheduler left from an earlier cluster runs on, refused by this one's API
# server, and every Pod then waits unplaced. The Pod is never run (the pause image, never pulled).
serves() {
  local ns="agentrun-kube-probe-$$-$RANDOM" ok=1 t0=$SECONDS
  kubectl create namespace "$ns" >/dev/null 2>&1 || return 1
  until kubectl -n "$ns" get serviceaccount default >/dev/null 2>&1; do
    [ $((SECONDS - t0)) -lt 30 ] || { ok=0; break; }
    sleep 0.3
  done
  if [ "$ok" = 1 ]; then
    kubectl -n "$ns" run probe --image "$PAUSE_IMAGE" --image-pull-policy Never --restart Never >/dev/null 2>&1 \
      && kubectl -n "$ns" wait --for=condition=PodScheduled pod/probe --timeout=30s >/dev/null 2>&1 || ok=0
  fi
  kubectl delete namespace "$ns" --wait=false >/dev/null 2>&1 || true
  [ "$ok" = 1 ]
}

# The RuntimeClass of gVisor's Pods: the handler each node's containerd runs under runsc.
runtime_class() {
  kubectl apply -f - >/dev/null <<EOF
apiVersion: node.k8s.io/v1
kind: RuntimeClass
metadata:
  name: $KUBE_GVISOR_CLASS
handler: $KUBE_GVISOR_HANDLER
EOF
}

# The proof the cluster runs Pods: two on each node, one under runc and one under gVisor, placed
# there by the scheduler, from the computers' image by digest, pulled from the cluster's registry.
smoke_pods() {
  local n name names="" class
  wait_for "the control plane did not serve (a new namespace's service account, a Pod placed)" 90 kube-controller-manager serves
  for n in $KUBE_NODES; do
    node_vars "$n"
    for class in "" "$KUBE_GVISOR_CLASS"; do
      name="agentrun-kube-smoke-$NODE${class:+-$class}"
      names="$names $name"
      kubectl delete pod "$name" --ignore-not-found --wait >/dev/null
      kubectl apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: $name
spec:
  nodeSelector:
    kubernetes.io/hostname: $NODE
  ${class:+runtimeClassName: $class}
  restartPolicy: Never
  automountServiceAccountToken: false
  enableServiceLinks: false
  terminationGracePeriodSeconds: 0
  containers:
  - name: smoke
    image: $(base_image_ref)
    command: ["sleep", "600"]
EOF
    done
  done
  for name in $names; do
    if ! kubectl wait --for=condition=Ready "pod/$name" --timeout=120s >/dev/null; then
      kubectl describe pod "$name" | tail -n 15 | sed 's/^/  | /' >&2
      die "the smoke Pod $name did not run; the lines above are its events (logs in $KUBE_STATE/log)"
    fi
  done
  # shellcheck disable=SC2086
  kubectl delete pod $names --wait --timeout=60s >/dev/null
  node_vars 1
}

# dist/kubeconfig (the admin's, certificates inline) and dist/kube.json, for the tests and the
# conformance module of this work tree.
write_dist() {
  mkdir -p dist
  install -m 600 "$KUBE_STATE/admin.kubeconfig" dist/kubeconfig
  node -e 'require("fs").writeFileSync(process.argv[1], JSON.stringify({
    kubeconfig: process.argv[2], image: process.argv[3], pauseImage: process.argv[4], kubectl: process.argv[5], state: process.argv[6],
    gvisorRuntimeClass: process.argv[7],
  }, null, 2) + "\n")' dist/kube.json "$ROOT/dist/kubeconfig" "$(base_image_ref)" "$PAUSE_IMAGE" "$KUBE_BIN/kubectl" "$KUBE_STATE" "$KUBE_GVISOR_CLASS"
}

[ -f dist/toolchain.json ] || die "dist/toolchain.json is missing; run npm run setup first"
BASE_IMAGE="$(node -p 'require("./dist/toolchain.json").baseImage')"
step --into BINS "the cluster's programs" bash scripts/toolchain/build-kube.sh
eval "$BINS"
PAUSE_IMAGE="agentrun.local/kube-pause:$(sha256sum "$PAUSE_BIN/pause" | cut -c1-12)"

# The scripts a cluster was started by: one started by others (an older checkout's), or whose start
# never ended, is removed and started again.
made_by() { cat scripts/kube-up.sh scripts/kube-lib.sh | sha256sum | cut -c1-16; }

if [ -d "$KUBE_STATE/run" ] && [ "$(cat "$KUBE_STATE/made-by" 2>/dev/null)" != "$(made_by)" ]; then
  say "the cluster was started by other scripts than these (another checkout's), or its start did not end; removing it and starting from nothing"
  KUBE_LOCKED=1 bash scripts/kube-down.sh
fi
if all_running && ready_node && serves; then
  for n in $KUBE_NODES; do node_vars "$n"; egress_image; done
  node_vars 1
  write_dist
  exit 0
fi
for p in runc runsc; do
  command -v $p >/dev/null && continue
  say "installing Debian's $p (apt-get)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $p >/dev/null || die "apt-get install $p failed"
done

up() {
  mkdir -p "$KUBE_STATE/run" "$KUBE_STATE/log"
  pki
  for n in $KUBE_NODES; do node_vars "$n"; node_pki; node_link; done
  control_plane
  registry_up
  push_base_image
  for n in $KUBE_NODES; do node_vars "$n"; containerd_up; images; egress_image; kubelet_up; done
  for n in $KUBE_NODES; do node_vars "$n"; wait_for "$NODE was not Ready" 180 "kubelet$NODE_SUFFIX" ready_node "$NODE"; done
  runtime_class
  smoke_pods
  made_by >"$KUBE_STATE/made-by"
}

# Some of the cluster runs (a node stopped, a process killed): what is missing is started, and the
# whole is proven as a cold start's is. When that fails, the cluster is removed and started from
# nothing, once.
if [ -d "$KUBE_STATE/run" ]; then
  set +e
  (set -e; up)
  rc=$?
  set -e
  [ "$rc" = 0 ] || {
    say "the cluster that was left did not come up whole; removing it and starting from nothing"
    KUBE_LOCKED=1 bash scripts/kube-down.sh
    up
  }
else
  up
fi
write_dist
say "the cluster is up in $((SECONDS - t_all)) s: KUBECONFIG=$ROOT/dist/kubeconfig (npm run kube:down stops it)"
