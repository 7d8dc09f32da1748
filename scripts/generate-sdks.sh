#!/usr/bin/env bash
# Generates the Python and Go SDKs from the package schema with `pulumi package gen-sdk`:
# OUT/python (the pulumi_directmail package) and OUT/go (the Go module, with a go.mod pinning
# github.com/pulumi/pulumi/sdk/v3 at the CLI's version and its go.sum). OUT is sdk/ unless given;
# test/unit/plugin/sdks.test.ts generates into a temporary folder and compares with sdk/.
# Regenerate the schema first when the resources changed (scripts/generate-campaign-schema.ts).
# Run through scripts/toolchain.sh: `npm run generate:sdks`.
#   usage: scripts/generate-sdks.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. scripts/ensure-pulumi.sh
. scripts/ensure-sdkgen.sh

out="${1:-sdk}"
command -v go >/dev/null ||
  die "Go is needed to generate the SDKs (it builds the generator and pins the Go SDK's modules): install Go >= 1.25 (https://go.dev/dl/) onto PATH"
version="$(pulumi_wanted_version)"
ensure_sdkgen
tmp="$(mktemp -d)"
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

for language in python go; do
  PATH="$DIRECTMAIL_SDKGEN_BIN:$PATH" "$DIRECTMAIL_SDKGEN_BIN/pulumi" package gen-sdk schema/pulumi-package.json \
    --language "$language" --out "$tmp" >"$tmp/gen-sdk.log" 2>&1 || {
    cat "$tmp/gen-sdk.log" >&2
    die "pulumi package gen-sdk --language $language failed"
  }
  # A warning of the code generator is a defect of the schema's generator: fix it there.
  if grep -iv '^SDK has been written to' "$tmp/gen-sdk.log" | grep -q .; then
    cat "$tmp/gen-sdk.log" >&2
    die "pulumi package gen-sdk --language $language warned; fix provider/plugin/schema.ts"
  fi
done

# The Go module requires the SDK the CLI is built from (the generator writes an older floor) and
# records its checksums, so that `go build` verifies what it downloads.
(
  cd "$tmp/go"
  go mod edit -require="github.com/pulumi/pulumi/sdk/v3@v$version"
  GOFLAGS=-mod=mod go mod tidy
) >"$tmp/go-mod.log" 2>&1 || { cat "$tmp/go-mod.log" >&2; die "go mod tidy of the Go SDK failed"; }

mkdir -p "$out"
for language in python go; do
  rm -rf "${out:?}/$language"
  cp -R "$tmp/$language" "$out/$language"
done
log "wrote $out/python and $out/go"
