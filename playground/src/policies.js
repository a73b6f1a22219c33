// The limits the timeline draws, read from `orbitc dis`'s text of the built program:
// each workflow's timeout and each step's `timeout` and `queue_timeout` (the resolved
// policies, defaults applied, exactly as the runtime sees them).

// The duration units of the disassembly's text (liborbc's orbc_duration_units), the one
// table of them in the playground's JavaScript (the timeline's labels use it too).
export const UNIT_MS = Object.freeze({ ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000 });

// "1d", "500ms", "1h30m" → milliseconds; "none" or anything else → null.
export function parseDuration(text) {
  if (!/^(\d+(ms|s|m|h|d))+$/.test(text)) return null;
  let total = 0;
  for (const [, count, unit] of text.matchAll(/(\d+)(ms|s|m|h|d)/g)) total += Number(count) * UNIT_MS[unit];
  return total;
}

// { workflows: { NAME: { timeout_ms, steps: { STEP: { timeout_ms, queue_timeout_ms } } } } }
export function limitsFromDisassembly(text) {
  const workflows = {};
  let workflow = null;
  let step = null;
  for (const line of text.split('\n')) {
    let m;
    if ((m = /^workflow \d+ (\S+) at /.exec(line))) {
      workflow = { timeout_ms: null, steps: {} };
      workflows[m[1]] = workflow;
      step = null;
    } else if (!workflow) {
      continue;
    } else if ((m = /^  timeout (\S+)$/.exec(line))) {
      workflow.timeout_ms = parseDuration(m[1]);
    } else if ((m = /^  step \d+ (\S+) at /.exec(line))) {
      step = { timeout_ms: null, queue_timeout_ms: null };
      workflow.steps[m[1]] = step;
    } else if (step && (m = /^    (timeout|queue_timeout) (\S+)$/.exec(line))) {
      step[m[1] + '_ms'] = parseDuration(m[2]);
    } else if (/^\S/.test(line)) {
      workflow = null;
      step = null;
    }
  }
  return { workflows };
}
