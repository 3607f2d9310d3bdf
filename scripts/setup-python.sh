#!/usr/bin/env bash
# The Python side: a virtual environment of scripts/toolchain/python/requirements.txt (PyPI's
# pulumi at the CLI's version, pytest), cached outside the work tree by the interpreter's version
# and the pins; then this tree's generated SDK (provider/sdk/python, the package pulumi_agentrun)
# installed into dist/python-sdk, which toolchain.env puts on PYTHONPATH (the venv is shared by
# work trees, the SDK is each tree's own). Prints the venv's folder. Exit 10: both were there.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

command -v python3 >/dev/null || die "python3 is not installed; install Python 3.9 or later (with its venv module) and run this again"
REQS="$ROOT/scripts/toolchain/python/requirements.txt"
pyver="$(python3 -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
key="$(sha256sum "$REQS" | cut -c1-12)"
VENV="$AGENTRUN_CACHE/python-$pyver-$key"
SDK_OUT="$ROOT/dist/python-sdk"
sdk_key="$(cd "$ROOT/provider/sdk/python" && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)"

venv_ready() { [ -x "$VENV/bin/python" ] && [ -f "$VENV/.agentrun-ready" ]; }
sdk_ready() { [ "$(cat "$SDK_OUT/.agentrun-sdk" 2>/dev/null)" = "$sdk_key" ]; }
venv_ready && sdk_ready && { echo "$VENV"; exit 10; }

if ! venv_ready; then
  # Set-ups running at once (work trees, CI) share one venv: the others wait for it.
  mkdir -p "$AGENTRUN_CACHE"
  exec 9>"$VENV.lock"
  flock 9
  if ! venv_ready; then
    say "making the Python virtual environment (pulumi, pytest) in $VENV"
    rm -rf "$VENV"
    python3 -m venv "$VENV" || die "python3 -m venv failed; install Python's venv module (apt-get install python3-venv)"
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input -r "$REQS" >&2 \
      || die "pip install -r scripts/toolchain/python/requirements.txt failed; check that PyPI answers"
    touch "$VENV/.agentrun-ready"
  fi
  exec 9>&-
fi
if ! sdk_ready; then
  say "installing the Python SDK (provider/sdk/python) into dist/python-sdk"
  rm -rf "$SDK_OUT"
  # Built from a copy: setuptools leaves build/ and *.egg-info beside the sources it builds.
  copy="$(mktemp -d /tmp/agentrun-python-sdk.XXXXXX)"
  cp -r "$ROOT/provider/sdk/python/." "$copy"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --no-input --no-deps --no-build-isolation \
    --target "$SDK_OUT" "$copy" >&2 || { rm -rf "$copy"; die "the Python SDK (provider/sdk/python) did not install"; }
  rm -rf "$copy"
  echo "$sdk_key" >"$SDK_OUT/.agentrun-sdk"
fi
echo "$VENV"
