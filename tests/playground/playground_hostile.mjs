// Hostile programs for the playground (docs/performance.md, "The playground's page"):
// shared by its tests (tests/playground/test_playground.mjs, tests/playground/test_playground_units.mjs) and
// its benchmark (tools/playground_page_bench.mjs).

// 65 bytes, a link of 132 characters: a workflow that starts two of itself, until the
// engine's limit of 100,000 executions (325,000 history events, failing at the end).
export const LINK_132 = 'workflow a { step s { workflow a; for i in [1, 2]; timeout 1h } }';

// 586 bytes: five levels of ten children, each leaf running a worker step for each of
// 60 items: 11,111 executions and 1,844,443 history events, all completing.
const TEN = '[0,1,2,3,4,5,6,7,8,9]';
export const PROGRAM_586 = [
  '// 11,111 executions (five levels of ten children), each leaf a step per item of 60 (1.8M).',
  'worker "w" { input { i: int } }',
  ...['a', 'b', 'c', 'd'].map((w, k) => `workflow ${w} { step s { workflow ${'bcde'[k]}; for i in ${TEN} } }`),
  'workflow e {',
  `  step t { worker "w"; for i in [${Array(6).fill(TEN.slice(1, -1)).join(',')}]; with { i: i } }`,
  '}',
  '',
].join('\n');

// One workflow of `steps` steps, each reading the one before and undone by a compensate
// block: what the Graph tab draws with arcs and "on failure" arrows.
export function graphProgram(steps) {
  const lines = [
    'worker "w" { input { n: int } output { n: int } }',
    'worker "undo" { input { n: int } }',
    'workflow big {',
    '  input { n: int }',
  ];
  for (let k = 0; k < steps; k++)
    lines.push(
      `  step s${k} { worker "w"; with { n: ${k ? `s${k - 1}.n` : 'input.n'} }; compensate { worker "undo"; with { n: s${k}.n } } }`,
    );
  lines.push('}', '');
  return lines.join('\n');
}

// `count` steps, each an error (E0506 `cannot apply + to int and string`, with a help
// line) on line k + 2: 32,000 make about 1 MB.
export function manyDiagnostics(count) {
  const lines = ['workflow many {'];
  for (let k = 0; k < count; k++) lines.push(`  step s${k} { compute 1 + "x" }`);
  lines.push('}', '');
  return lines.join('\n');
}

// `#source=` of a program (docs/playground.md, "Shareable links").
export const link = (source) => '#source=' + Buffer.from(source, 'utf8').toString('base64url');
