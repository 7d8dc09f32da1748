#!/usr/bin/env bash
# The whole test suite: lint, build (which type-checks the package), type-check of the tests and
# programs, then every vitest test (unit, integration against the sandbox over HTTP, end to end
# with the real pulumi CLI, state in an object store included, and the package as npm packs it:
# contents, publint, attw, API report).
# Run through scripts/toolchain.sh (`npm test`), which provides Node.js, the dependencies and the
# Pulumi CLI.
set -euo pipefail
cd "$(dirname "$0")/.."

# Two steps at a time where neither needs the other: each uses one core, and the machine has two.
# `beside LABEL COMMAND...` starts COMMAND with its output kept aside; `joined` waits for it, prints
# that output under its label and fails when it failed.
beside() {
  beside_label="$1" && shift
  beside_out="$(mktemp)"
  "$@" >"$beside_out" 2>&1 &
  beside_pid=$!
}
joined() {
  local status=0
  wait "$beside_pid" || status=$?
  echo "== $beside_label"
  cat "$beside_out" && rm -f "$beside_out"
  return "$status"
}

rm -rf dist
beside "lint (biome)" npx biome ci .
echo "== build (tsc)"
npx tsc -p tsconfig.json || { joined; exit 1; }
joined
beside "the Python SDK's wheel (dist/python: the package ships it, \`init --python\` copies it)" \
  bash scripts/build-python-wheel.sh
echo "== type-check of tests, examples and programs (they import the built package)"
npx tsc -p test/tsconfig.json || { joined; exit 1; }
joined
echo "== object store for the shared-state tests (SeaweedFS, built once per machine)"
DIRECTMAIL_WEED="$(bash scripts/ensure-seaweedfs.sh)"
export DIRECTMAIL_WEED
echo "== tests (vitest; pulumi $(pulumi version))"
# Temporary folders in memory where the machine allows it (and may execute files there, as
# Pulumi runs a project's plugin and the workflow's scripts run npx): the tests install and delete
# node_modules and write Pulumi state some thousands of files a minute, several times faster there.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
  scratch="$(mktemp -d /dev/shm/directmail-tests-XXXXXX)"
  printf '#!/bin/sh\nexit 0\n' >"$scratch/probe" && chmod +x "$scratch/probe"
  if "$scratch/probe" 2>/dev/null; then
    rm "$scratch/probe"
    export TMPDIR="$scratch"
    trap 'rm -rf "$scratch"' EXIT
  else
    rm -rf "$scratch"
  fi
fi
# Every Node.js process the tests start (Pulumi programs, providers, the CLI, npm) keeps its
# compiled code in one cache of this checkout: a program's SDK and TypeScript load faster from the
# second run on.
export NODE_COMPILE_CACHE="$PWD/node_modules/.cache/node-compile-cache"
# Each start of the pulumi CLI (some 1,700 in a run) builds two password-strength dictionaries,
# some 40 MB of small allocations, before it does anything: with Go's default heap target the
# collector runs several times meanwhile. A target four times as far cuts a start's CPU by a sixth.
export GOGC="${GOGC:-400}"
mkdir -p test-results
# The reliability parts add their figures to what is there: each run starts from none.
rm -rf test-results/soak
VITEST_JSON_OUTPUT=test-results/vitest.json npx vitest run "$@"
