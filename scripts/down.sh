#!/usr/bin/env bash
# Tears down the root stack that `npm run up` made (pulumi destroy), with the same local backend.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
[ -f dist/toolchain.env ] || die "nothing was set up here yet; there is nothing to tear down"
. dist/toolchain.env
export PULUMI_BACKEND_URL="file://$ROOT/.pulumi"
export PULUMI_CONFIG_PASSPHRASE="${PULUMI_CONFIG_PASSPHRASE-agentrun-local}"
pulumi destroy --yes --non-interactive --stack "${AGENTRUN_STACK:-dev}" "$@"
