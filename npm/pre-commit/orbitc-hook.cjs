#!/usr/bin/env node
// The entry of orbitc's pre-commit hooks (.pre-commit-hooks.yaml, language: node;
// docs/ci.md, "pre-commit"): runs the npm package orbitc that pre-commit installed into
// the hook's own environment from its additional_dependencies (orbitc@VERSION, or the
// tarballs tools/npm-pack.sh makes), found through the NODE_PATH pre-commit sets, with the
// arguments given: never another orbitc on the PATH.
'use strict';

let launcher;
try {
  launcher = require.resolve('orbitc/bin/orbitc');
} catch {
  process.stderr.write(
    "orbitc-hook: the npm package orbitc is not installed in this hook's environment: name it in the " +
      "hook's additional_dependencies in .pre-commit-config.yaml, e.g. [orbitc@" +
      require('../../package.json').version +
      '] (docs/ci.md, "pre-commit")\n',
  );
  process.exit(2);
}
require(launcher); // it reads process.argv as orbitc's: this hook's arguments
