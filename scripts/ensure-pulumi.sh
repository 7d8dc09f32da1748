# Puts the Pulumi CLI, its Node.js language host and the dynamic-provider plugin first on PATH.
# Sourced by scripts/toolchain.sh. Order of preference:
#   1. `pulumi` already on PATH, at least the version of @pulumi/pulumi in package.json, with a
#      pulumi-language-nodejs beside it or on PATH;
#   2. a build in the cache, $DIRECTMAIL_CACHE_DIR/pulumi-v<version>/bin;
#   3. a fresh build from the Go module proxy (tools/pulumi), cached for the next run.

pulumi_wanted_version() {
  node -p 'require("./package.json").dependencies["@pulumi/pulumi"]'
}

version_at_least() { # version_at_least HAVE WANT
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

usable_pulumi_on_path() {
  local bin have
  bin="$(command -v pulumi || true)"
  [ -n "$bin" ] || return 1
  have="$(PULUMI_SKIP_UPDATE_CHECK=true "$bin" version 2>/dev/null | sed 's/^v//')"
  version_at_least "${have%%-*}" "$1" || return 1
  [ -x "$(dirname "$bin")/pulumi-language-nodejs" ] || command -v pulumi-language-nodejs >/dev/null
}

build_pulumi() { # build_pulumi VERSION DIR
  local version="$1" dir="$2" started tmp gomodcache
  command -v go >/dev/null || die "Go is needed to build the Pulumi CLI $version (or put pulumi >= $version on PATH)"
  started=$(date +%s)
  log "building the Pulumi CLI v$version and its Node.js language host from the Go module proxy"
  log "(once per machine: about 6 minutes on 2 cores with empty Go caches; output in $DIRECTMAIL_CACHE_DIR/pulumi-build.log)"
  tmp="$(mktemp -d)"
  mkdir -p "$DIRECTMAIL_CACHE_DIR"
  local buildlog="$DIRECTMAIL_CACHE_DIR/pulumi-build.log"
  cp -R tools/pulumi/. "$tmp/"
  (
    cd "$tmp"
    go mod edit -require="github.com/pulumi/pulumi/pkg/v3@v$version" -require="github.com/pulumi/pulumi/sdk/v3@v$version"
    export CGO_ENABLED=0 GOFLAGS=-mod=mod
    local flags=(-trimpath -tags osusergo,grpcnotrace -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version")
    go build "${flags[@]}" -o "$tmp/out/pulumi" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
    go build "${flags[@]}" -o "$tmp/out/pulumi-language-nodejs" ./pulumi-language-nodejs
  ) >"$buildlog" 2>&1 || { tail -n 40 "$buildlog" >&2; die "building the Pulumi CLI failed; the whole log is in $buildlog"; }
  gomodcache="$(go env GOMODCACHE)"
  # The engine looks for the dynamic-provider plugin beside the pulumi binary; it ships in sdk/v3.
  install -m 0755 "$gomodcache/github.com/pulumi/pulumi/sdk/v3@v$version/nodejs/dist/pulumi-resource-pulumi-nodejs" "$tmp/out/"
  rm -rf "$dir.partial" && mkdir -p "$dir.partial" && mv "$tmp/out" "$dir.partial/bin"
  echo "$(( $(date +%s) - started ))" > "$dir.partial/build-seconds"
  rm -rf "$dir" && mv -T "$dir.partial" "$dir"
  chmod -R u+w "$tmp" && rm -rf "$tmp"
  log "built Pulumi v$version in $(cat "$dir/build-seconds") s, cached in $dir"
}

ensure_pulumi() {
  local version dir
  version="$(pulumi_wanted_version)"
  if [ -z "${DIRECTMAIL_FORCE_PULUMI_BUILD:-}" ] && usable_pulumi_on_path "$version"; then
    return 0
  fi
  dir="$DIRECTMAIL_CACHE_DIR/pulumi-v$version"
  if [ ! -x "$dir/bin/pulumi" ] || [ ! -x "$dir/bin/pulumi-language-nodejs" ] || [ ! -x "$dir/bin/pulumi-resource-pulumi-nodejs" ]; then
    mkdir -p "$DIRECTMAIL_CACHE_DIR"
    # One build at a time on a machine: a second run waits for the first and reuses its result.
    exec 9>"$DIRECTMAIL_CACHE_DIR/pulumi-build.lock"
    flock 9
    [ -x "$dir/bin/pulumi-resource-pulumi-nodejs" ] || build_pulumi "$version" "$dir"
    exec 9>&-
  fi
  export PATH="$dir/bin:$PATH"
}
