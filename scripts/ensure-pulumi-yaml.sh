# Puts the Pulumi YAML language host (`pulumi-language-yaml`) beside the project's pulumi, or else on
# PATH, so that `runtime: yaml` programs run. Sourced by scripts/toolchain.sh. Built once per machine
# from the Go module proxy at the pinned version, with the module's own go.sum, and cached in
# $DIRECTMAIL_CACHE_DIR/pulumi-yaml-v<version>/bin. A host already on PATH is used as it is.

# Pinned: checked with the Pulumi CLI of package.json's devDependencies (test/e2e/yaml-*.test.ts).
DIRECTMAIL_PULUMI_YAML_VERSION="1.25.0"

# build_pulumi_yaml VERSION DIR: builds the host into DIR/bin inside a writable copy of the module
# (the module cache is read-only). Output goes to the build log.
build_pulumi_yaml() {
  local version="$1" dir="$2" module tmp started
  command -v go >/dev/null || die "Go is needed to build the Pulumi YAML language host v$version (or put pulumi-language-yaml on PATH)"
  started=$(date +%s)
  log "building the Pulumi YAML language host v$version from the Go module proxy"
  log "(once per machine: a few minutes on 2 cores; output in $DIRECTMAIL_CACHE_DIR/pulumi-yaml-build.log)"
  rm -rf "$dir.partial" && mkdir -p "$dir.partial/bin"
  tmp="$(mktemp -d)"
  (
    set -e
    module="$(cd "$tmp" && go mod download -json "github.com/pulumi/pulumi-yaml@v$version" | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).Dir')"
    cp -R "$module/." "$tmp/src"
    chmod -R u+w "$tmp/src"
    cd "$tmp/src"
    export CGO_ENABLED=0 GOFLAGS=-mod=mod
    go build -trimpath -ldflags "-X github.com/pulumi/pulumi-yaml/pkg/version.Version=v$version" \
      -o "$dir.partial/bin/" ./cmd/pulumi-language-yaml
  ) >>"$DIRECTMAIL_CACHE_DIR/pulumi-yaml-build.log" 2>&1 || {
    tail -n 40 "$DIRECTMAIL_CACHE_DIR/pulumi-yaml-build.log" >&2
    chmod -R u+w "$tmp" && rm -rf "$tmp"
    die "building pulumi-language-yaml v$version failed; the whole log is in $DIRECTMAIL_CACHE_DIR/pulumi-yaml-build.log"
  }
  chmod -R u+w "$tmp" && rm -rf "$tmp"
  echo "$(( $(date +%s) - started ))" > "$dir.partial/build-seconds"
  rm -rf "$dir" && mv -T "$dir.partial" "$dir"
  log "built the Pulumi YAML language host v$version in $(cat "$dir/build-seconds") s, cached in $dir"
}

ensure_pulumi_yaml() {
  local dir
  if [ -z "${DIRECTMAIL_FORCE_PULUMI_YAML_BUILD:-}" ] && command -v pulumi-language-yaml >/dev/null; then
    return 0
  fi
  dir="$DIRECTMAIL_CACHE_DIR/pulumi-yaml-v$DIRECTMAIL_PULUMI_YAML_VERSION"
  if [ ! -x "$dir/bin/pulumi-language-yaml" ]; then
    mkdir -p "$DIRECTMAIL_CACHE_DIR"
    # One build at a time on a machine: a second run waits for the first and reuses its result.
    exec 8>"$DIRECTMAIL_CACHE_DIR/pulumi-yaml-build.lock"
    flock 8
    [ -x "$dir/bin/pulumi-language-yaml" ] || { : >"$DIRECTMAIL_CACHE_DIR/pulumi-yaml-build.log"; build_pulumi_yaml "$DIRECTMAIL_PULUMI_YAML_VERSION" "$dir"; }
    exec 8>&-
  fi
  # The engine takes a language host from the running pulumi's folder, and warns ("using
  # pulumi-language-yaml from $PATH") when it finds it on PATH instead: a pulumi of this project's
  # cache gets a link to it beside it. Any other pulumi's folder is left alone.
  local cli
  cli="$(dirname "$(command -v pulumi)")"
  case "$cli" in
    "$DIRECTMAIL_CACHE_DIR"/*)
      [ -x "$cli/pulumi-language-yaml" ] || ln -sf "$dir/bin/pulumi-language-yaml" "$cli/pulumi-language-yaml"
      return 0
      ;;
  esac
  export PATH="$dir/bin:$PATH"
}
