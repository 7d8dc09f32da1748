#!/usr/bin/env bash
# Builds the Python SDK's wheel, dist/python/pulumi_directmail-<version>-py3-none-any.whl, from
# sdk/python (scripts/generate-sdks.sh writes it; <version> is package.json's) and prints its
# absolute path on stdout. `pip install <that path>` installs it; pip brings its dependencies (pulumi, parver,
# semver) from PyPI or a wheel folder (PIP_FIND_LINKS).
# The build backend (setuptools, pinned) is installed once per machine into a virtual environment
# in $DIRECTMAIL_CACHE_DIR, so later builds need no network. The build runs in a copy of
# sdk/python, which stays as generated.
# With --if-missing it builds only when OUT_DIR has no wheel of this version (npm's prepack: a
# maintainer's `npm pack` or `npm publish` ships the wheel; scripts/test.sh rebuilds it always).
#   usage: scripts/build-python-wheel.sh [--if-missing] [OUT_DIR]    (default: dist/python)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

if_missing=""
if [ "${1:-}" = "--if-missing" ]; then if_missing=1 && shift; fi

# Pinned: the backend pyproject.toml names (setuptools >= 61); 80.9 builds wheels by itself.
DIRECTMAIL_SETUPTOOLS_VERSION="80.9.0"

out="${1:-dist/python}"
version="$(sed -n 's/^ *version *= *"\(.*\)"$/\1/p' sdk/python/pyproject.toml 2>/dev/null || true)"
if [ -n "$if_missing" ] && [ -n "$version" ] && [ -f "$out/pulumi_directmail-$version-py3-none-any.whl" ]; then
  echo "$(cd "$out" && pwd)/pulumi_directmail-$version-py3-none-any.whl"
  exit 0
fi
python="${DIRECTMAIL_PYTHON:-python3}"
command -v "$python" >/dev/null ||
  die "Python 3.9 or later is needed to build the Python SDK's wheel: install python3 (or set DIRECTMAIL_PYTHON)"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 9))' ||
  die "the Python SDK needs Python 3.9 or later; $("$python" --version 2>&1) found (set DIRECTMAIL_PYTHON)"
[ -f sdk/python/pyproject.toml ] || die "sdk/python is missing: run npm run generate:sdks"

backend="$DIRECTMAIL_CACHE_DIR/python-build-setuptools-$DIRECTMAIL_SETUPTOOLS_VERSION-py$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [ ! -x "$backend/bin/python" ]; then
  mkdir -p "$DIRECTMAIL_CACHE_DIR"
  # One install at a time on a machine: a second run waits for the first and reuses its result.
  exec 6>"$DIRECTMAIL_CACHE_DIR/python-build.lock"
  flock 6
  if [ ! -x "$backend/bin/python" ]; then
    log "installing the wheel build backend (setuptools $DIRECTMAIL_SETUPTOOLS_VERSION) into $backend"
    rm -rf "$backend.partial"
    {
      "$python" -m venv "$backend.partial" &&
        "$backend.partial/bin/python" -m pip install --quiet "setuptools==$DIRECTMAIL_SETUPTOOLS_VERSION"
    } >"$DIRECTMAIL_CACHE_DIR/python-build.log" 2>&1 || {
      tail -n 20 "$DIRECTMAIL_CACHE_DIR/python-build.log" >&2
      die "installing setuptools $DIRECTMAIL_SETUPTOOLS_VERSION from PyPI failed; the log is in $DIRECTMAIL_CACHE_DIR/python-build.log"
    }
    # Only `bin/python -m pip` is used, which works in a moved environment (its scripts would not).
    rm -rf "$backend" && mv -T "$backend.partial" "$backend"
  fi
  exec 6>&-
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp -R sdk/python "$tmp/src"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
wheel="$out/pulumi_directmail-$version-py3-none-any.whl"
rm -f "$wheel"
"$backend/bin/python" -m pip wheel --quiet --no-deps --no-build-isolation --no-index \
  --wheel-dir "$tmp/wheel" "$tmp/src" >"$tmp/build.log" 2>&1 || {
  cat "$tmp/build.log" >&2
  die "building the wheel of sdk/python failed"
}
mv "$tmp/wheel/$(basename "$wheel")" "$wheel" ||
  die "the build made $(ls "$tmp/wheel"), not $(basename "$wheel")"
log "built $wheel"
echo "$wheel"
