#!/usr/bin/env bash
# `npm run soak`: the reliability suite (test/reliability) at its full counts, then the table of
# figures and soak-results.json. Not part of CI: CI runs the same suite at bounded counts in `npm test`.
# Run through scripts/toolchain.sh, which provides Node.js, the dependencies and the Pulumi CLI.
set -uo pipefail
cd "$(dirname "$0")/.."

npx tsc -p tsconfig.json || exit 1
rm -rf test-results/soak
SOAK_SCALE=full SOAK_OUT=test-results/soak npx vitest run test/reliability "$@"
status=$?
node dist/scripts/soak-report.js test-results/soak soak-results.json || status=1
exit $status
