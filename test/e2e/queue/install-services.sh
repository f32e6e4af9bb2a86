#!/usr/bin/env bash
# Installs what n8n's queue mode needs beside n8n: Debian's Redis and PostgreSQL, only when missing
# (idempotent; the tests and the demo run their own throwaway instances, never the system services).
# Prints the folder of the PostgreSQL server binaries (initdb, pg_ctl, postgres) on its last line.
set -euo pipefail

pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }

missing=()
command -v redis-server >/dev/null || missing+=(redis-server)
[ -n "$(pg_bin)" ] && [ -x "$(pg_bin)/initdb" ] || missing+=(postgresql)
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "queue mode needs ${missing[*]}: run this script as root, or: apt-get install -y ${missing[*]}" >&2
		exit 1
	fi
	echo "installing ${missing[*]} (apt-get)..." >&2
	export DEBIAN_FRONTEND=noninteractive
	# Waits for another apt run (a machine's first minutes often have one) instead of failing.
	apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
	apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
command -v redis-server >/dev/null || { echo 'redis-server is still missing' >&2; exit 1; }
bin="$(pg_bin)"
[ -x "$bin/initdb" ] || { echo 'PostgreSQL server binaries are still missing' >&2; exit 1; }
echo "$bin"
