#!/usr/bin/env bash
# A Docker engine that answers `docker info`: the one running, else (as root) Debian's
# docker.io, started in the background. Exit 10: an engine already answered.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

engine_up() { timeout 10 docker info >/dev/null 2>&1; }
engine_up && exit 10

if [ "$(id -u)" != 0 ]; then
  die "no Docker engine answers 'docker info', and only root can install and start one here.
  Start your Docker engine (or add yourself to the docker group), or run as root: sudo bash scripts/setup.sh"
fi

if ! command -v dockerd >/dev/null; then
  say "installing Debian's docker.io (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || die "apt-get update failed; check that Debian's package mirror answers"
  apt-get install -y -qq docker.io >/dev/null || die "apt-get install docker.io failed; the lines above say why"
fi

# A dockerd killed with its session leaves its pid file, and a new dockerd refuses to start on it.
pidfile=/var/run/docker.pid
if [ -f "$pidfile" ] && ! kill -0 "$(cat "$pidfile")" 2>/dev/null; then rm -f "$pidfile"; fi

log=/var/log/agentrun-dockerd.log
say "starting dockerd in the background (log: $log)"
setsid nohup dockerd >"$log" 2>&1 </dev/null &
for _ in $(seq 1 60); do
  engine_up && exit 0
  sleep 1
done
tail -n 20 "$log" >&2 || true
die "dockerd did not answer 'docker info' within 60 s; its log is $log"
