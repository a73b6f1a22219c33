#!/usr/bin/env bash
# Formats every JavaScript and TypeScript file of the repository with Biome, as
# biome.jsonc says (docs/code-style.md, "JavaScript and TypeScript"), and turns on the
# format check of tests/code/test_style.py: the one command that makes (or makes again, after
# a merge) the commit "style: format every JavaScript and TypeScript file with Biome".
# Installs Biome first from tools/style/package-lock.json (tools/install-npm.sh).
# Rewrites files in place; run it on a clean tree and read `git diff --stat` after.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/install-npm.sh tools/style
sed -i '/tools\/style\/format.sh deletes this line/d' biome.jsonc
biome=tools/style/node_modules/.bin/biome
# Until nothing changes: one pass of Biome 2.6.9 can leave a member chain that its next
# pass joins (hosts/restate/lib/host.mjs), and the check wants the fixed point.
for pass in 1 2 3; do
    "$biome" format --write --colors=off . >/dev/null 2>&1
    if "$biome" format --colors=off . >/dev/null 2>&1; then
        echo "format.sh: every JavaScript and TypeScript file formatted (passes: $pass)"
        exit 0
    fi
done
echo "format.sh: Biome's formatting still changes after 3 passes:" >&2
"$biome" format --colors=off . >&2
exit 1
