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
# The file is stale unless its pid is a live dockerd (not a zombie still being reaped).
pidfile=/var/run/docker.pid
live_dockerd() {
  local pid stat
  pid="$(cat "$pidfile" 2>/dev/null)" || return 1
  stat="$(cat "/proc/$pid/stat" 2>/dev/null)" || return 1
  case "$stat" in *"(dockerd) "[RSDt]*) return 0 ;; esac
  return 1
}
if [ -f "$pidfile" ] && ! live_dockerd; then rm -f "$pidfile"; fi

log=/var/log/agentrun-dockerd.log
# start_and_wait: 0 when the engine answers; 1 when dockerd ended first; 2 when it never answered.
start_and_wait() {
  setsid nohup dockerd >"$log" 2>&1 </dev/null &
  local started=$!
  for _ in $(seq 1 60); do
    engine_up && return 0
    kill -0 "$started" 2>/dev/null || return 1
    sleep 1
  done
  return 2
}
say "starting dockerd in the background (log: $log)"
rc=0; start_and_wait || rc=$?
# Just after a killed engine, its containerd can still be letting go and time the new one out:
# one more start, after the old pid files are cleared, is what a person would do.
if [ "$rc" = 1 ]; then
  say "dockerd exited as it started ($(tail -n 1 "$log")); starting it once more"
  [ -f "$pidfile" ] && ! live_dockerd && rm -f "$pidfile"
  sleep 2
  rc=0; start_and_wait || rc=$?
fi
[ "$rc" = 0 ] && exit 0
tail -n 20 "$log" >&2 || true
[ "$rc" = 1 ] && die "dockerd exited as it started, twice; its log ($log) says why above"
die "dockerd did not answer 'docker info' within 60 s; its log is $log"
