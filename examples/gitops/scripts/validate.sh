#!/usr/bin/env bash
# Checks the campaign files and the recipient files they name (YAML, schema, rows, unique names),
# the checks `pulumi up` runs before it changes anything. Changes nothing and needs no service.
# In GitHub Actions each problem is an annotation on its file and line.
#   usage: scripts/validate.sh [files or folders...]   (default: campaigns)
set -euo pipefail
cd "$(dirname "$0")/.."

format=()
if [ "${GITHUB_ACTIONS:-}" = true ]; then format=(--format github); fi
# --no: the package this repository installs, never one downloaded by that name.
exec npx --no directmail validate "${format[@]}" "${@:-campaigns}"
