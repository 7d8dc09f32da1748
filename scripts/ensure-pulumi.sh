# Puts the Pulumi CLI, its Node.js and Python language hosts and the dynamic-provider plugin first on
# PATH.
# Sourced by scripts/toolchain.sh. Order of preference:
#   1. `pulumi` already on PATH, at least the development pin of @pulumi/pulumi (package.json's
#      devDependencies), with a pulumi-language-nodejs and a pulumi-language-python beside it or on PATH;
#   2. a build in the cache: the CLI in $DIRECTMAIL_CACHE_DIR/pulumi-v<version>/bin, keyed by version,
#      and beside it the language hosts in pulumi-v<version>/language-host-<key>/bin, keyed by a digest
#      of their sources, so that a changed host is rebuilt (seconds) without rebuilding the CLI;
#   3. a fresh build from the Go module proxy (tools/pulumi), cached for the next run.

# The exact version pinned in devDependencies (users' projects bring their own SDK: it is a peer
# dependency with a range).
pulumi_wanted_version() {
  node -p 'require("./package.json").devDependencies["@pulumi/pulumi"]'
}

version_at_least() { # version_at_least HAVE WANT
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}

usable_pulumi_on_path() {
  local bin have
  bin="$(command -v pulumi || true)"
  [ -n "$bin" ] || return 1
  # A build of this project's cache found on PATH may carry an older language host: choose again.
  case "$bin" in "$DIRECTMAIL_CACHE_DIR"/*) return 1 ;; esac
  have="$(PULUMI_SKIP_UPDATE_CHECK=true "$bin" version 2>/dev/null | sed 's/^v//')"
  version_at_least "${have%%-*}" "$1" || return 1
  local host
  for host in pulumi-language-nodejs pulumi-language-python; do
    [ -x "$(dirname "$bin")/$host" ] || command -v "$host" >/dev/null || return 1
  done
}

# go_build VERSION OUT PACKAGE...: builds PACKAGEs of tools/pulumi, pinned to Pulumi VERSION, into
# the folder OUT, with the flags of Pulumi's release build. Output goes to the build log.
go_build() {
  local version="$1" out="$2" tmp
  shift 2
  tmp="$(mktemp -d)"
  cp -R tools/pulumi/. "$tmp/"
  (
    cd "$tmp"
    go mod edit -require="github.com/pulumi/pulumi/pkg/v3@v$version" -require="github.com/pulumi/pulumi/sdk/v3@v$version"
    export CGO_ENABLED=0 GOFLAGS=-mod=mod
    local flags=(-trimpath -tags osusergo,grpcnotrace -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version")
    for package in "$@"; do go build "${flags[@]}" -o "$out/" "$package"; done
  ) >>"$DIRECTMAIL_CACHE_DIR/pulumi-build.log" 2>&1 || {
    tail -n 40 "$DIRECTMAIL_CACHE_DIR/pulumi-build.log" >&2
    die "building $* failed; the whole log is in $DIRECTMAIL_CACHE_DIR/pulumi-build.log"
  }
  chmod -R u+w "$tmp" && rm -rf "$tmp"
}

# build_cli VERSION DIR: the Pulumi CLI and the dynamic-provider plugin into DIR/bin.
build_cli() {
  local version="$1" dir="$2" started
  command -v go >/dev/null || die "Go is needed to build the Pulumi CLI $version (or put pulumi >= $version on PATH)"
  started=$(date +%s)
  log "building the Pulumi CLI v$version from the Go module proxy"
  log "(once per machine: about 6 minutes on 2 cores with empty Go caches; output in $DIRECTMAIL_CACHE_DIR/pulumi-build.log)"
  rm -rf "$dir.partial" && mkdir -p "$dir.partial/bin"
  go_build "$version" "$dir.partial/bin" github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
  # The engine looks for the dynamic-provider plugin beside the pulumi binary; it ships in sdk/v3.
  install -m 0755 "$(go env GOMODCACHE)/github.com/pulumi/pulumi/sdk/v3@v$version/nodejs/dist/pulumi-resource-pulumi-nodejs" "$dir.partial/bin/"
  echo "$(( $(date +%s) - started ))" > "$dir.partial/build-seconds"
  rm -rf "$dir" && mv -T "$dir.partial" "$dir"
  log "built the Pulumi CLI v$version in $(cat "$dir/build-seconds") s, cached in $dir"
}

# language_host_key: a digest of everything the language hosts are built from (their module and this
# script, which holds the build flags), so that any change to them builds new ones.
language_host_key() {
  { find tools/pulumi -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; sha256sum scripts/ensure-pulumi.sh; } |
    sha256sum | cut -c1-16
}

# build_language_host VERSION CLI_DIR DIR: the project's language hosts into DIR/bin, beside hard
# links of the CLI's binaries. The engine takes its bundled plugins from the folder of the running
# `pulumi`, and warns when the one on PATH is another, so they must share a folder; a hard link
# costs no space and no CLI rebuild. The Python host runs programs through the executor script that
# ships with the Python SDK in sdk/v3, installed beside it as upstream installs it.
build_language_host() {
  local version="$1" cli="$2" dir="$3" started
  command -v go >/dev/null || die "Go is needed to build the Pulumi language host (or put pulumi >= $version on PATH)"
  started=$(date +%s)
  log "building the Node.js and Python language hosts from tools/pulumi (a minute once the CLI is built)"
  rm -rf "$dir.partial" && mkdir -p "$dir.partial/bin"
  go_build "$version" "$dir.partial/bin" ./pulumi-language-nodejs ./pulumi-language-python
  install -m 0755 "$(go env GOMODCACHE)/github.com/pulumi/pulumi/sdk/v3@v$version/python/cmd/pulumi-language-python-exec" "$dir.partial/bin/"
  for binary in pulumi pulumi-resource-pulumi-nodejs; do
    ln "$cli/bin/$binary" "$dir.partial/bin/$binary" 2>/dev/null || cp -p "$cli/bin/$binary" "$dir.partial/bin/$binary"
  done
  echo "$(( $(date +%s) - started ))" > "$dir.partial/build-seconds"
  rm -rf "$dir" && mv -T "$dir.partial" "$dir"
  log "built the language hosts in $(cat "$dir/build-seconds") s, cached in $dir"
}

ensure_pulumi() {
  local version cli host
  version="$(pulumi_wanted_version)"
  if [ -z "${DIRECTMAIL_FORCE_PULUMI_BUILD:-}" ] && usable_pulumi_on_path "$version"; then
    return 0
  fi
  cli="$DIRECTMAIL_CACHE_DIR/pulumi-v$version"
  host="$cli/language-host-$(language_host_key)"
  if [ ! -x "$host/bin/pulumi-language-python" ]; then
    mkdir -p "$DIRECTMAIL_CACHE_DIR"
    # One build at a time on a machine: a second run waits for the first and reuses its result.
    exec 9>"$DIRECTMAIL_CACHE_DIR/pulumi-build.lock"
    flock 9
    [ -x "$host/bin/pulumi-language-python" ] || : >"$DIRECTMAIL_CACHE_DIR/pulumi-build.log"
    # Each folder is renamed into place only when complete.
    [ -x "$cli/bin/pulumi-resource-pulumi-nodejs" ] || build_cli "$version" "$cli"
    [ -x "$host/bin/pulumi-language-python" ] || build_language_host "$version" "$cli" "$host"
    exec 9>&-
  fi
  export PATH="$host/bin:$PATH"
}
