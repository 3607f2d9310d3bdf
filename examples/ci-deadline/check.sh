#!/usr/bin/env bash
# A CI check: fails when computers outlive their deadline. Runs this folder's program, whose only
# work is the plugin's listComputers (it makes nothing), then reads its `overdue` output.
# Exit 0: none overdue; 1: some (named on stderr; the janitor's sweep, `agentrun sweep`, deletes
# them); else: an error. Usage: check.sh <stack> (the stack's config sets run).
set -uo pipefail
stack="${1:?usage: check.sh <stack>}"
dir="$(cd "$(dirname "$0")" && pwd)"
if ! pulumi up --cwd "$dir" --stack "$stack" --yes --skip-preview --non-interactive --suppress-progress >/dev/null; then
  echo "deadline check: pulumi up failed (above)" >&2
  exit 2
fi
overdue="$(pulumi stack output --cwd "$dir" --stack "$stack" overdue --json)" || { echo "deadline check: the output could not be read" >&2; exit 2; }
names="$(node -e 'console.log(JSON.parse(process.argv[1]).join(" "))' "$overdue")"
if [ -n "$names" ]; then
  echo "deadline check: these computers have outlived their deadline: $names" >&2
  exit 1
fi
echo "deadline check: no computer has outlived its deadline"
