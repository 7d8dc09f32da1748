# Shared settings of the project's shell scripts. Sourced, not run.

# Everything this project downloads or builds outside the checkout lives here, so that a second
# clone (or CI on the same machine) reuses it.
DIRECTMAIL_CACHE_DIR="${DIRECTMAIL_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/pulumi-directmail}"
export DIRECTMAIL_CACHE_DIR

# Node.js brought from the npm registry when the system one is older than the supported floor.
DIRECTMAIL_NODE_VERSION="24.21.0"
DIRECTMAIL_NODE_FLOOR_MAJOR=22

log() { printf '[directmail] %s\n' "$*" >&2; }
die() { printf '[directmail] error: %s\n' "$*" >&2; exit 1; }
