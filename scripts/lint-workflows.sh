#!/usr/bin/env bash
# Validates every GitHub Actions workflow against its schema (@action-validator/cli, offline).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/toolchain.sh
shopt -s nullglob
files=(.github/workflows/*.yml .github/workflows/*.yaml)
[ ${#files[@]} -gt 0 ] || { echo "lint-workflows: no workflow files" >&2; exit 1; }
for file in "${files[@]}"; do
	action-validator "$file"
	echo "lint-workflows: $file ok"
done
