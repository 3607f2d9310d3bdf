#!/usr/bin/env bash
# A CI drift check: reads every resource of the stack back and fails when anything is not as
# declared (a computer gone, stopped or changed by hand; a run folder's owner or mode changed).
# Changes nothing. Exit 0: as declared; 7: drift (the preview above says what); else: an error.
# Usage: check.sh <project dir> <stack>
set -uo pipefail
dir="${1:?usage: check.sh <project dir> <stack>}"
stack="${2:?usage: check.sh <project dir> <stack>}"
pulumi preview --cwd "$dir" --stack "$stack" --refresh --expect-no-changes --diff --non-interactive
rc=$?
case $rc in
  0) echo "drift check: the stack $stack is as declared" ;;
  7) echo "drift check: the stack $stack has drifted; 'pulumi up' puts it back as declared (with --refresh where the project does not refresh on every up)" >&2 ;;
  *) echo "drift check: pulumi preview failed (exit $rc)" >&2 ;;
esac
exit $rc
