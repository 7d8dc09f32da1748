#!/usr/bin/env bash
# Runs a command with the project's toolchain in place: Node.js >= 22, the npm dependencies as
# locked in package-lock.json, the compiled dist/, the Pulumi CLI and its YAML language host. Every README command goes
# through here, so a fresh machine needs nothing installed by hand.
#   usage: scripts/toolchain.sh COMMAND [ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/ensure-node.sh
. scripts/ensure-pulumi.sh
. scripts/ensure-pulumi-yaml.sh

ensure_node

# Install the locked dependencies when they are missing or the lock file changed since.
stamp=node_modules/.directmail-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  log "installing npm dependencies (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi

ensure_pulumi
# The YAML language host serves only `runtime: yaml` programs (the tests'): the demo, a TypeScript
# program, goes without it, so a new machine's first `npm run demo` does not wait for its build.
[ -n "${DIRECTMAIL_WITHOUT_YAML_HOST:-}" ] || ensure_pulumi_yaml

# Pulumi runs offline: no update check, no plugin download.
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true

exec "$@"
