#!/usr/bin/env bash
# npm run kube:down: stops the cluster kube-up.sh started and removes what it made: its Pods,
# processes, mounts, veths, bridges (each node's Pods' and the nodes' link), the iptables chains the kubelet and the CNI
# plugins added, the cgroups, the kernel settings it changed, its state folder, and this work
# tree's dist/kubeconfig and dist/kube.json. Safe to run again, and after a kube:up that failed.
set -euo pipefail
. "$(dirname "$0")/kube-lib.sh"
cd "$ROOT"
need_root
kube_lock

strays() { # kill what kube_strays finds, TERM then KILL
  local pids
  pids="$(kube_strays)"
  [ -n "$pids" ] || return 0
  say "stopping the cluster's programs that had no pid file: $(echo $pids)"
  kill $pids 2>/dev/null || true
  sleep 3
  kill -9 $(kube_strays) 2>/dev/null || true
}
[ -d "$KUBE_STATE" ] || { strays; rm -f dist/kubeconfig dist/kube.json "$KUBE_STATE.lock"; exit 0; }
say "stopping the cluster ($KUBE_STATE)"

# Pods first, while the kubelet runs, so each one's network is torn down by its CNI plugins.
if kube_api /readyz >/dev/null 2>&1 && [ -n "$(kube_pid kubelet)" ]; then
  kubectl="$(ls "$AGENTRUN_CACHE"/kubernetes-*/bin/kubectl 2>/dev/null | head -n1 || true)"
  if [ -n "$kubectl" ]; then
    "$kubectl" --kubeconfig "$KUBE_STATE/admin.kubeconfig" delete pods --all --all-namespaces \
      --grace-period=0 --wait --timeout=60s >/dev/null 2>&1 || say "some Pods were not deleted in 60 s; stopping them by force"
  fi
fi

stop() { # <process>: TERM, then KILL after 15 s
  local pid i
  pid="$(kube_pid "$1")"
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true
  for i in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -9 "$pid" 2>/dev/null || true
}
for p in $(echo "$KUBE_PROCESSES" | tr ' ' '\n' | tac); do stop "$p"; done
strays

# What outlives each node's containerd: its shims (found by the socket only that containerd has)
# and every process in the Pods' cgroups.
# A shim killed leaves its socket in containerd's fixed folder, named by the hash of this
# containerd's address, the namespace and the task's id.
shim_socket() { printf '/run/containerd/s/%s' "$(printf '%s' "$NODE_SOCK/k8s.io/$1" | sha256sum | cut -c1-64)"; }
pod_cgroups="" # each node's Pods' cgroup folder in every hierarchy, and a node's own cgroup root
for n in $KUBE_NODES; do
  node_vars "$n"
  for pid in $(pgrep -f -- "-address $NODE_SOCK" || true); do
    id="$(tr '\0' '\n' <"/proc/$pid/cmdline" 2>/dev/null | awk 'take { print; exit } $0 == "-id" { take = 1 }' || true)"
    kill -9 "$pid" 2>/dev/null || true
    [ -z "$id" ] || rm -f "$(shim_socket "$id")"
  done
  pod_cgroups="$pod_cgroups ${NODE_CGROUP:-kubepods}"
done
pod_cgroups() { local r; for r in $pod_cgroups; do find /sys/fs/cgroup/*/"$r" -depth -type d 2>/dev/null || true; done; }
for g in $(pod_cgroups); do
  for pid in $(cat "$g/cgroup.procs" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
done
sleep 0.5
for g in $(pod_cgroups); do rmdir "$g" 2>/dev/null || true; done

# Mounts under the state folder (overlays, shm, network namespaces, volumes), deepest first.
awk -v s="$KUBE_STATE" '$5 == s || index($5, s "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r \
  | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done

# Links: each node's Pods' veths on its bridge, the bridge, then the nodes' own link.
for n in $KUBE_NODES; do
  node_vars "$n"
  for veth in $(ip -o link show master "$NODE_BRIDGE" 2>/dev/null | awk -F': ' '{ print $2 }' | cut -d@ -f1); do
    ip link delete "$veth" 2>/dev/null || true
  done
  ip link delete "$NODE_BRIDGE" 2>/dev/null || true
done
ip link delete "$KUBE_LINK" 2>/dev/null || true
# The Docker engine's trust of the registry's CA.
rm -rf "$KUBE_REGISTRY_DOCKER_CERTS"

# iptables: the chains made after kube-up looked (kubelet's KUBE-*, the CNI plugins' CNI-*),
# every rule that jumps to them, then the chains themselves.
unchain() { # <iptables|ip6tables> <file of "table chain" there before>
  local cmd="$1" before="$2" t chain rule
  [ -f "$before" ] || return 0
  for t in filter nat mangle; do
    local made=()
    while read -r chain; do
      grep -qx "$t $chain" "$before" || made+=("$chain")
    done < <("$cmd" -t "$t" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^(KUBE|CNI)-/ { print $2 }')
    [ "${#made[@]}" = 0 ] && continue
    for chain in "${made[@]}"; do
      "$cmd" -t "$t" -S 2>/dev/null | { grep -E -- "-j $chain( |$)" || true; } | sed 's/^-A /-D /' | while read -r rule; do
        eval "$cmd -t $t $rule" 2>/dev/null || true
      done
    done
    for chain in "${made[@]}"; do "$cmd" -t "$t" -F "$chain" 2>/dev/null || true; done
    for chain in "${made[@]}"; do "$cmd" -t "$t" -X "$chain" 2>/dev/null || true; done
  done
}
unchain iptables "$KUBE_STATE/iptables.before"
unchain ip6tables "$KUBE_STATE/ip6tables.before"

# The kernel settings as they were before the kubelet set its own.
if [ -f "$KUBE_STATE/sysctl.before" ]; then
  while read -r setting; do sysctl -q -w "$setting" >/dev/null 2>&1 || true; done <"$KUBE_STATE/sysctl.before"
fi

# The kubelet's links to the Pods' logs (its folder is fixed), then the state folder.
find /var/log/containers -maxdepth 1 -type l -lname "$KUBE_STATE/*" -delete 2>/dev/null || true
rmdir /var/log/containers 2>/dev/null || true
# The programs' logs outlive the cluster, the last one's alone, for the failure that came before.
rm -rf "$KUBE_LAST_LOGS"
mkdir -p "${KUBE_LAST_LOGS%/*}"
cp -r "$KUBE_STATE/log" "$KUBE_LAST_LOGS" 2>/dev/null || true
rm -rf "$KUBE_STATE"
rm -f dist/kubeconfig dist/kube.json "$KUBE_STATE.lock"
say "the cluster is stopped and removed (its programs' logs kept in $KUBE_LAST_LOGS)"
