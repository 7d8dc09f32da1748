# Gives `pulumi package gen-sdk` the Python and Go code generators. The CLI asks the language's host
# to generate a package, and the upstream Python and Go hosts live in Go modules that the module
# proxy does not serve, so tools/sdkgen builds one binary around the code generators of
# github.com/pulumi/pulumi/pkg/v3 at the CLI's version, installed as `pulumi-language-python` and
# `pulumi-language-go` in a folder of their own beside a link of the CLI (the engine takes a bundled
# plugin from the running `pulumi`'s folder). Only scripts/generate-sdks.sh uses that folder: the
# toolchain's PATH does not change. Sourced after scripts/lib.sh and scripts/ensure-pulumi.sh.
#   ensure_sdkgen: sets DIRECTMAIL_SDKGEN_BIN to the folder, building it once per source digest.

sdkgen_key() {
  { find tools/sdkgen -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; sha256sum scripts/ensure-sdkgen.sh; } |
    sha256sum | cut -c1-16
}

build_sdkgen() { # build_sdkgen VERSION DIR
  local version="$1" dir="$2" tmp pulumi_bin
  command -v go >/dev/null || die "Go is needed to build the SDK generator (tools/sdkgen); /usr/local/go/bin/go or any Go >= 1.25 on PATH"
  log "building the SDK generator from tools/sdkgen (once per change of it; output in $DIRECTMAIL_CACHE_DIR/sdkgen-build.log)"
  rm -rf "$dir.partial" && mkdir -p "$dir.partial/bin"
  tmp="$(mktemp -d)"
  cp -R tools/sdkgen/. "$tmp/"
  (
    set -e
    cd "$tmp"
    go mod edit -require="github.com/pulumi/pulumi/pkg/v3@v$version" -require="github.com/pulumi/pulumi/sdk/v3@v$version"
    export CGO_ENABLED=0 GOFLAGS=-mod=mod
    go build -trimpath -ldflags "-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=v$version" \
      -o "$dir.partial/bin/pulumi-language-python" .
  ) >"$DIRECTMAIL_CACHE_DIR/sdkgen-build.log" 2>&1 || {
    tail -n 40 "$DIRECTMAIL_CACHE_DIR/sdkgen-build.log" >&2
    die "building the SDK generator failed; the whole log is in $DIRECTMAIL_CACHE_DIR/sdkgen-build.log"
  }
  chmod -R u+w "$tmp" && rm -rf "$tmp"
  ln "$dir.partial/bin/pulumi-language-python" "$dir.partial/bin/pulumi-language-go"
  pulumi_bin="$(readlink -f "$(command -v pulumi)")"
  ln "$pulumi_bin" "$dir.partial/bin/pulumi" 2>/dev/null || cp -p "$pulumi_bin" "$dir.partial/bin/pulumi"
  rm -rf "$dir" && mv -T "$dir.partial" "$dir"
}

ensure_sdkgen() {
  local version dir
  version="$(pulumi_wanted_version)"
  dir="$DIRECTMAIL_CACHE_DIR/sdkgen-v$version-$(sdkgen_key)"
  if [ ! -x "$dir/bin/pulumi" ]; then
    mkdir -p "$DIRECTMAIL_CACHE_DIR"
    # One build at a time on a machine: a second run waits for the first and reuses its result.
    exec 7>"$DIRECTMAIL_CACHE_DIR/sdkgen-build.lock"
    flock 7
    [ -x "$dir/bin/pulumi" ] || build_sdkgen "$version" "$dir"
    exec 7>&-
  fi
  DIRECTMAIL_SDKGEN_BIN="$dir/bin"
}
