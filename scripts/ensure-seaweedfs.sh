#!/usr/bin/env bash
# Prints the path of SeaweedFS's `weed` (the S3-compatible object store that the object-store tests
# and the bench keep Pulumi state in) at the version pinned in tools/seaweedfs/go.mod. The first run
# builds it from the Go module proxy (go.sum checks what it downloads) with the `go` on PATH and
# caches it outside the checkout, in $DIRECTMAIL_CACHE_DIR/seaweedfs-<version>, as
# scripts/ensure-pulumi.sh does for the Pulumi CLI: built into a `.partial` folder and renamed into
# place when complete, one build at a time on a machine, its output in
# $DIRECTMAIL_CACHE_DIR/seaweedfs-build.log. Later runs print the cached one.
#   usage: scripts/ensure-seaweedfs.sh
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

version="$(awk '$1 == "github.com/seaweedfs/seaweedfs" { print $2 }' tools/seaweedfs/go.mod)"
[ -n "$version" ] || die "tools/seaweedfs/go.mod requires no github.com/seaweedfs/seaweedfs"
dir="$DIRECTMAIL_CACHE_DIR/seaweedfs-$version"
build_log="$DIRECTMAIL_CACHE_DIR/seaweedfs-build.log"

if [ ! -x "$dir/bin/weed" ]; then
  command -v go >/dev/null || die "Go is needed to build SeaweedFS $version (tools/seaweedfs)"
  mkdir -p "$DIRECTMAIL_CACHE_DIR"
  # One build at a time on a machine: a second run waits for the first and reuses its result.
  exec 9>"$DIRECTMAIL_CACHE_DIR/seaweedfs-build.lock"
  flock 9
  if [ ! -x "$dir/bin/weed" ]; then
    started=$(date +%s)
    log "building SeaweedFS $version from the Go module proxy"
    log "(once per machine: about 4 minutes on 2 cores with empty Go caches; output in $build_log)"
    rm -rf "$dir.partial" && mkdir -p "$dir.partial/bin"
    (
      cd tools/seaweedfs
      CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$dir.partial/bin/weed" \
        github.com/seaweedfs/seaweedfs/weed
    ) >"$build_log" 2>&1 || {
      tail -n 40 "$build_log" >&2
      die "building SeaweedFS $version failed; the whole log is in $build_log"
    }
    echo "$(( $(date +%s) - started ))" >"$dir.partial/build-seconds"
    rm -rf "$dir" && mv -T "$dir.partial" "$dir"
    log "built SeaweedFS $version in $(cat "$dir/build-seconds") s, cached in $dir"
  fi
  exec 9>&-
fi
echo "$dir/bin/weed"
