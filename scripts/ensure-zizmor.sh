#!/usr/bin/env bash
# Prints the path of zizmor (the security linter of GitHub Actions workflows) at the version pinned,
# with its hashes, in tools/zizmor/requirements.txt. The first run installs it from PyPI into a
# virtual environment cached outside the checkout, in $DIRECTMAIL_CACHE_DIR/zizmor-<version>, as
# scripts/ensure-actionlint.sh does for actionlint; later runs print the cached one.
#   usage: scripts/ensure-zizmor.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

requirements=tools/zizmor/requirements.txt
version="$(sed -n 's/^zizmor==\([^ ]*\).*/\1/p' "$requirements")"
[ -n "$version" ] || die "$requirements pins no zizmor version"
dir="$DIRECTMAIL_CACHE_DIR/zizmor-$version"

if [ ! -x "$dir/bin/zizmor" ]; then
  python="$(command -v python3 || true)"
  [ -n "$python" ] || die "Python 3 is needed to install zizmor $version from PyPI"
  mkdir -p "$DIRECTMAIL_CACHE_DIR"
  # One install at a time on a machine: a second run waits for the first and reuses its result.
  exec 9>"$DIRECTMAIL_CACHE_DIR/zizmor-install.lock"
  flock 9
  if [ ! -x "$dir/bin/zizmor" ]; then
    log "installing zizmor $version from PyPI (once per machine, cached in $dir)"
    rm -rf "$dir.partial"
    {
      "$python" -m venv "$dir.partial" &&
        "$dir.partial/bin/pip" install --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
          --require-hashes -r "$requirements"
    } >&2 || die "installing zizmor $version failed"
    rm -rf "$dir" && mv -T "$dir.partial" "$dir"
  fi
  exec 9>&-
fi
echo "$dir/bin/zizmor"
