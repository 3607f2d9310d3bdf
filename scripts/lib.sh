# Shared by the toolchain scripts: progress lines, refusals, and the cache folder.
# Sourced, never run.

# The toolchain lives outside the work tree, keyed by version, so later runs and CI reuse it.
AGENTRUN_CACHE="${AGENTRUN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/agentrun}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

say() { printf '[setup] %s\n' "$*" >&2; }
die() { printf '[setup] error: %s\n' "$*" >&2; exit 1; }

# step [--into VAR] NAME CMD...: runs CMD, saying how long it took only when it did real work
# (CMD returns 0 after work, 10 when everything was already there). With --into, CMD's stdout is
# its result, kept in VAR. With AGENTRUN_SETUP_LOG set (npm run up), every step says one line with
# its time once it ends (whole lines: steps run side by side), and CMD's own output (Go module
# downloads, compilers, apt) goes to that log instead.
step() {
  local into=""
  if [ "$1" = --into ]; then into="$2"; shift 2; fi
  local name="$1"; shift
  local t0=$SECONDS rc=0 result=""
  if [ -n "${AGENTRUN_SETUP_LOG:-}" ]; then
    printf '\n== %s (%s)\n' "$name" "$(date -u +%H:%M:%S)" >>"$AGENTRUN_SETUP_LOG"
    if [ -n "$into" ]; then result="$("$@" 2>>"$AGENTRUN_SETUP_LOG")" || rc=$?; else "$@" >>"$AGENTRUN_SETUP_LOG" 2>&1 || rc=$?; fi
    if [ "$rc" != 0 ] && [ "$rc" != 10 ]; then
      printf '[setup] %s … failed (exit %s) after %s s\n' "$name" "$rc" "$((SECONDS - t0))" >&2
      tail -n 15 "$AGENTRUN_SETUP_LOG" | sed 's/^/  | /' >&2
      die "$name failed; the lines above are the end of $AGENTRUN_SETUP_LOG"
    fi
    if [ "$rc" = 0 ]; then printf '[setup] %s … ready in %s s\n' "$name" "$((SECONDS - t0))" >&2; else printf '[setup] %s … already there (%s s)\n' "$name" "$((SECONDS - t0))" >&2; fi
    if [ -n "$into" ]; then printf -v "$into" '%s' "$result"; fi
    return 0
  fi
  if [ -n "$into" ]; then result="$("$@")" || rc=$?; else "$@" || rc=$?; fi
  if [ "$rc" != 0 ] && [ "$rc" != 10 ]; then die "$name failed (exit $rc); the lines above say why"; fi
  if [ -n "$into" ]; then printf -v "$into" '%s' "$result"; fi
  if [ "$rc" = 0 ]; then say "$name ready in $((SECONDS - t0)) s"; fi
}

# local_backend: the root stack's state, for the commands that run it (up, down): the CLI the
# set-up built, a file backend in .pulumi/, and a default passphrase unless one is set.
local_backend() {
  . "$ROOT/dist/toolchain.env"
  mkdir -p "$ROOT/.pulumi"
  export PULUMI_BACKEND_URL="file://$ROOT/.pulumi"
  export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE-agentrun-local}"
}

# beside KEY NAME CMD...: the step run in the background, beside the rest (steps that need nothing
# of each other: the Go builds, the images, npm ci). Its result and its log (npm run up's) are
# kept apart until joined, so side-by-side steps never mix their lines. joined KEY [VAR] waits
# for it, puts its result in VAR, and ends the set-up if it failed (its words are already said);
# a step beside it then still ends on its own (what it made is kept for the next run). BESIDE is
# the caller's scratch folder.
beside() {
  local key="$1" name="$2"; shift 2
  local log="${AGENTRUN_SETUP_LOG:-}"
  if [ -n "$log" ]; then
    printf '[setup] %s … started beside the rest\n' "$name" >&2
    log="$BESIDE/$key.log"
    : >"$log"
  fi
  ( beside_result=""; AGENTRUN_SETUP_LOG="$log" step --into beside_result "$name" "$@"; printf '%s' "$beside_result" >"$BESIDE/$key.out" ) &
  echo $! >"$BESIDE/$key.pid"
}
joined() {
  local key="$1" rc=0
  wait "$(cat "$BESIDE/$key.pid")" || rc=$?
  rm -f "$BESIDE/$key.pid"
  if [ -n "${AGENTRUN_SETUP_LOG:-}" ] && [ -f "$BESIDE/$key.log" ]; then cat "$BESIDE/$key.log" >>"$AGENTRUN_SETUP_LOG"; fi
  [ "$rc" = 0 ] || exit "$rc"
  if [ -n "${2:-}" ]; then printf -v "$2" '%s' "$(cat "$BESIDE/$key.out")"; fi
}
