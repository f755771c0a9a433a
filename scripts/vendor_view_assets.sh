#!/usr/bin/env bash
# Fetch the graph-drawing libraries that `agent-zot view` inlines into its page, from the npm registry, and
# copy their minified builds and licences into agent_zot/view/assets/. Nothing is fetched at view time.
#
# sigma (WebGL renderer) and graphology (the graph model) ship minified UMD builds, copied as they are.
# graphology-layout-forceatlas2 ships CommonJS only, so it is bundled here with esbuild into one minified
# IIFE (global `graphologyLayoutForceAtlas2`). Versions are pinned; vendor.json records each package's
# version, its registry integrity (from package-lock.json) and the sha256 of every file written, which
# tests/view/test_view_page.py checks.
#
# Usage: scripts/vendor_view_assets.sh   (needs node and npm; rerun after changing a version below)
set -euo pipefail

SIGMA=3.0.3
GRAPHOLOGY=0.26.0
FA2=0.10.1
ESBUILD=0.28.2

repo="$(cd "$(dirname "$0")/.." && pwd)"
assets="$repo/agent_zot/view/assets"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --ignore-scripts --save-exact \
  "sigma@$SIGMA" "graphology@$GRAPHOLOGY" "graphology-layout-forceatlas2@$FA2" "esbuild@$ESBUILD" >/dev/null

mkdir -p "$assets"
cp node_modules/sigma/dist/sigma.min.js "$assets/sigma.min.js"
cp node_modules/sigma/LICENSE.txt "$assets/sigma.LICENSE.txt"
cp node_modules/graphology/dist/graphology.umd.min.js "$assets/graphology.umd.min.js"
cp node_modules/graphology/LICENSE.txt "$assets/graphology.LICENSE.txt"
cp node_modules/graphology-layout-forceatlas2/LICENSE.txt "$assets/graphology-layout-forceatlas2.LICENSE.txt"
# graphology-utils is bundled into the layout file: its licence travels with it.
cp node_modules/graphology-utils/LICENSE.txt "$assets/graphology-utils.LICENSE.txt"
node_modules/.bin/esbuild node_modules/graphology-layout-forceatlas2/index.js \
  --bundle --minify --format=iife --global-name=graphologyLayoutForceAtlas2 \
  --legal-comments=none --target=es2017 --log-level=warning \
  --outfile="$assets/graphology-layout-forceatlas2.min.js"

node - "$assets" <<'EOF'
const fs = require("fs");
const crypto = require("crypto");
const path = require("path");
const assets = process.argv[2];
const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8")).packages;
const pkg = (name) => ({ name, version: lock[`node_modules/${name}`].version, integrity: lock[`node_modules/${name}`].integrity });
const sha = (file) => crypto.createHash("sha256").update(fs.readFileSync(path.join(assets, file))).digest("hex");
const entry = (name, files, how) => ({ ...pkg(name), how, files: Object.fromEntries(files.map((f) => [f, sha(f)])) });
const manifest = {
  fetched_with: `npm ${require("child_process").execSync("npm --version").toString().trim()}`,
  packages: [
    entry("sigma", ["sigma.min.js", "sigma.LICENSE.txt"], "dist/sigma.min.js copied"),
    entry("graphology", ["graphology.umd.min.js", "graphology.LICENSE.txt"], "dist/graphology.umd.min.js copied"),
    entry(
      "graphology-layout-forceatlas2",
      ["graphology-layout-forceatlas2.min.js", "graphology-layout-forceatlas2.LICENSE.txt"],
      `index.js bundled with esbuild ${pkg("esbuild").version} (--bundle --minify --format=iife)`,
    ),
    entry("graphology-utils", ["graphology-utils.LICENSE.txt"], "bundled into graphology-layout-forceatlas2.min.js"),
  ],
};
fs.writeFileSync(path.join(assets, "vendor.json"), JSON.stringify(manifest, null, 2) + "\n");
EOF
echo "Vendored into $assets:"
ls -l "$assets"
