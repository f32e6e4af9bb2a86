#!/usr/bin/env bash
# Debian's chromium and certutil for the browser suite; installs only what is missing (the suite never downloads a browser).
set -euo pipefail
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v certutil >/dev/null 2>&1 || missing+=(libnss3-tools)
if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-chromium: need root to apt-get install ${missing[*]}" >&2
		exit 1
	fi
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
command -v chromium
