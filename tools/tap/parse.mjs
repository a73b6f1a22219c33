// Reads a TAP stream with node-tap's parser (tap-parser), the reference implementation of
// TAP version 14, in strict mode (a line that is not TAP is an error), and prints what it
// made of it as JSON: the version, the plan, every test point with its YAML diagnostic,
// the final verdict and every parse error. tests/unit/test_report_ci_tools.py runs it on
// `orbitc test --format tap`.
//
//     node tools/tap/parse.mjs FILE.tap
import { readFileSync } from 'node:fs';
import { Parser } from 'tap-parser';

const tests = [];
let version = null;
const parser = new Parser({ strict: true }, (results) => {
  const errors = results.failures.filter((f) => f.tapError).map((f) => f.tapError);
  process.stdout.write(
    `${JSON.stringify({
      version,
      plan: { start: results.plan.start, end: results.plan.end },
      ok: results.ok,
      count: results.count,
      pass: results.pass,
      fail: results.fail,
      tests,
      errors,
    })}\n`,
  );
});
parser.on('version', (v) => {
  version = v;
});
parser.on('assert', (a) => {
  tests.push({ id: a.id, ok: a.ok, name: a.name, diag: a.diag });
});
parser.end(readFileSync(process.argv[2], 'utf8'));
