#!/usr/bin/env bash
# The README's main command: set-up, then `pulumi up` of the root stack (Pulumi.yaml) with a
# local file backend in .pulumi/ and, unless you set PULUMI_CONFIG_PASSPHRASE, a default
# passphrase for local state. No prompts. It refreshes first, so what drifted by hand since the
# last run is put back as declared. Extra arguments go to `pulumi up`.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
bash scripts/setup.sh
local_backend
stack="${AGENTRUN_STACK:-dev}"
pulumi stack select --create --non-interactive "$stack" >/dev/null
pulumi up --yes --non-interactive --refresh --stack "$stack" "$@"
