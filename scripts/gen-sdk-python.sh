#!/usr/bin/env bash
# Writes the Python SDK (provider/sdk/python, the package pulumi_agentrun) from schema/schema.json
# with Pulumi's own Python code generator. With --check it writes nothing and fails, naming each
# file, when the committed SDK is not what the schema gives. --schema FILE reads another schema.
# Usage: bash scripts/gen-sdk-python.sh [--check] [--schema FILE]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

check=0
schema="$ROOT/schema/schema.json"
while [ $# -gt 0 ]; do
  case "$1" in
    --check) check=1 ;;
    --schema) schema="$2"; shift ;;
    *) die "usage: bash scripts/gen-sdk-python.sh [--check] [--schema FILE]" ;;
  esac
  shift
done
SDK="$ROOT/provider/sdk/python"
rc=0
gen="$(bash "$ROOT/scripts/setup-gen-python-sdk.sh")" || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 10 ] || exit "$rc"
out="$(mktemp -d /tmp/agentrun-python-sdk.XXXXXX)"
trap 'rm -rf "$out"' EXIT
"$gen" "$schema" "$out"
if [ "$check" = 1 ]; then
  differ="$(diff -rq "$SDK" "$out" | sed -e "s#$out#(generated)#g" -e "s#$ROOT/##g")" || true
  [ -z "$differ" ] && exit 0
  printf '%s\n' "$differ" >&2
  die "provider/sdk/python is not what ${schema#"$ROOT"/} gives: run bash scripts/gen-sdk-python.sh"
fi
rm -rf "$SDK" && cp -r "$out" "$SDK" && chmod 755 "$SDK"
