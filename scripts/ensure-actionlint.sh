#!/usr/bin/env bash
# Prints the path of actionlint (the linter of GitHub Actions workflows) at the version pinned in
# tools/actionlint/go.mod. The first run builds it from the Go module proxy (go.sum checks what it
# downloads) and caches it outside the checkout, in $DIRECTMAIL_CACHE_DIR/actionlint-<version>, as
# scripts/ensure-pulumi.sh does for the Pulumi CLI; later runs print the cached one.
#   usage: scripts/ensure-actionlint.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

version="$(awk '$1 == "github.com/rhysd/actionlint" { print $2 }' tools/actionlint/go.mod)"
[ -n "$version" ] || die "tools/actionlint/go.mod requires no github.com/rhysd/actionlint"
dir="$DIRECTMAIL_CACHE_DIR/actionlint-$version"

if [ ! -x "$dir/bin/actionlint" ]; then
  command -v go >/dev/null || die "Go is needed to build actionlint $version"
  mkdir -p "$DIRECTMAIL_CACHE_DIR"
  # One build at a time on a machine: a second run waits for the first and reuses its result.
  exec 9>"$DIRECTMAIL_CACHE_DIR/actionlint-build.lock"
  flock 9
  if [ ! -x "$dir/bin/actionlint" ]; then
    log "building actionlint $version from the Go module proxy (once per machine, cached in $dir)"
    rm -rf "$dir.partial" && mkdir -p "$dir.partial/bin"
    (
      cd tools/actionlint
      CGO_ENABLED=0 go build -trimpath -ldflags "-X github.com/rhysd/actionlint.version=$version" \
        -o "$dir.partial/bin/" github.com/rhysd/actionlint/cmd/actionlint
    ) >&2 || die "building actionlint $version failed"
    rm -rf "$dir" && mv -T "$dir.partial" "$dir"
  fi
  exec 9>&-
fi
echo "$dir/bin/actionlint"
