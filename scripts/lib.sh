# Shared by the toolchain scripts: progress lines, refusals, and the cache folder.
# Sourced, never run.

# The toolchain lives outside the work tree, keyed by version, so later runs and CI reuse it.
AGENTRUN_CACHE="${AGENTRUN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentrun}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

say() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

# step NAME CMD...: runs CMD, saying how long it took only when it did real work
# (CMD returns 0 after work, 10 when everything was already there).
step() {
  local name="$1"; shift
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  if [ "$rc" = 10 ]; then return 0; fi
  if [ "$rc" != 0 ]; then die "$name failed (exit $rc); the lines above say why"; fi
  say "$name ready in $((SECONDS - t0)) s"
}
