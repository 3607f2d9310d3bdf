#!/usr/bin/env bash
# npm run conformance: the set-up (its words on stderr, so --json keeps stdout to the report), then
# the conformance CLI. A module path is resolved from where npm was run (INIT_CWD).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
bash scripts/setup.sh >&2
exec node dist/src/conformance/cli.js "$@"
