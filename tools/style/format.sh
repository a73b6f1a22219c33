#!/usr/bin/env bash
# Formats every JavaScript and TypeScript file of the repository with Biome, as
# biome.jsonc says (docs/code-style.md, "JavaScript and TypeScript"), and turns on the
# format check of tests/test_style.py: the one command that makes (or makes again, after
# a merge) the commit "style: format every JavaScript and TypeScript file with Biome".
# Installs Biome first from tools/style/package-lock.json (tools/install-npm.sh).
# Rewrites files in place; run it on a clean tree and read `git diff --stat` after.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/install-npm.sh tools/style
sed -i '/tools\/style\/format.sh deletes this line/d' biome.jsonc
tools/style/node_modules/.bin/biome format --write --colors=off .
