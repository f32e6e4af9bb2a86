#!/usr/bin/env bash
# prepublishOnly: a hand-run `npm publish` cannot ship an unbuilt, unlinted or unscanned package.
# (The publish workflow runs the whole of .ci/run before it gets here.)
set -euo pipefail
cd "$(dirname "$0")/.."
npm run build
npm run lint
npm run scan
# Every file the package.json n8n block names must be in what is packed.
node -e '
const { n8n } = require("./package.json");
const missing = [...n8n.credentials, ...n8n.nodes].filter((file) => !require("node:fs").existsSync(file));
if (missing.length) { console.error(`prepublish: missing from dist/: ${missing.join(", ")}`); process.exit(1); }
'
