#!/usr/bin/env bash
# gVisor for Docker computers with runtime gvisor (exit 10: it was registered already): Debian's runsc, registered with the engine as
# the runtime "runsc" in /etc/docker/daemon.json and loaded by a reload (SIGHUP), so the engine's
# running containers are left alone. Root only; a host that is not is told how, and the rest of
# the set-up goes on (runtime gvisor is then refused at check, in words).
#
# The choice, measured on this machine (a Firecracker VM, kernel 6.18, runsc 2022-12):
#   --platform=ptrace: /dev/kvm is there, but runsc's kvm platform hangs at start in this VM.
#   --network=none: gVisor's own network stack is refused here ("cannot run with network enabled
#     in root network namespace"): this runsc takes a namespace holding
#     /proc/sys/net/core/rmem_default for the host's, and kernel 6.18 gives that file to every
#     namespace. On a host where `unshare -n test -e /proc/sys/net/core/rmem_default` fails (or
#     with a newer runsc), leave --network=none out and network open works under gVisor too.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

conf=/etc/docker/daemon.json
args='["--platform=ptrace", "--network=none"]'

registered() { timeout 10 docker info --format '{{json .Runtimes}}' 2>/dev/null | grep -q '"runsc"'; }
registered && exit 10
if [ "$(id -u)" != 0 ]; then
  say "gVisor: not registered with this Docker engine, and only root can; runtime gvisor is refused until runsc is in $conf's runtimes"
  exit 0
fi
if ! command -v runsc >/dev/null; then
  say "installing Debian's runsc (gVisor) with apt-get"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq runsc >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq runsc >/dev/null; } ||
    die "apt-get install runsc failed; the lines above say why"
fi
say "gVisor: registering runsc with the Docker engine (--platform=ptrace, --network=none: the platform and network that run here)"
node -e '
  const fs = require("node:fs");
  const [conf, path, args] = process.argv.slice(1);
  let c = {};
  try { c = JSON.parse(fs.readFileSync(conf, "utf8")); } catch (e) { if (e.code !== "ENOENT") throw e; }
  c.runtimes = { ...(c.runtimes ?? {}), runsc: { path, runtimeArgs: JSON.parse(args) } };
  fs.mkdirSync(require("node:path").dirname(conf), { recursive: true });
  fs.writeFileSync(conf, JSON.stringify(c, null, 2) + "\n");
' "$conf" "$(command -v runsc)" "$args"
pid="$(cat /var/run/docker.pid 2>/dev/null || true)"
[ -n "$pid" ] && kill -HUP "$pid" 2>/dev/null || die "no dockerd pid in /var/run/docker.pid to reload; restart your engine so it reads $conf"
for _ in $(seq 1 20); do registered && exit 0; sleep 0.5; done
die "dockerd did not take runsc from $conf after a reload; its log says why"
