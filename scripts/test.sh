#!/usr/bin/env bash
# The whole test suite: lint, type-check, build, then every vitest test (unit, integration against
# the sandbox over HTTP, end to end with the real pulumi CLI). Run through scripts/toolchain.sh
# (`npm test`), which provides Node.js, the dependencies and the Pulumi CLI.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== lint (biome)"
npx biome ci .
echo "== type-check (tsc)"
npx tsc -p tsconfig.json --noEmit
npx tsc -p test/tsconfig.json
echo "== build"
npx tsc -p tsconfig.json
echo "== tests (vitest; pulumi $(pulumi version))"
mkdir -p test-results
VITEST_JSON_OUTPUT=test-results/vitest.json npx vitest run "$@"
