#!/usr/bin/env bash
# Tears down the root stack that `npm run up` made (pulumi destroy), with the same local backend.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
[ -f dist/toolchain.env ] || die "nothing was set up here yet; there is nothing to tear down"
local_backend
pulumi destroy --yes --non-interactive --stack "${AGENTRUN_STACK:-dev}" "$@"
