#!/usr/bin/env bash
# Deploys the campaigns: `pulumi up` of the stack (PULUMI_STACK, or the selected one). The pipeline
# runs it after merge, once the review of the same commit has passed and, when that review reported
# spending, once a required reviewer has approved.
#   usage: scripts/deploy.sh
set -euo pipefail
cd "$(dirname "$0")/.."

args=(up --yes --non-interactive)
if [ -n "${PULUMI_STACK:-}" ]; then args+=(--stack "$PULUMI_STACK"); fi
exec pulumi "${args[@]}"
