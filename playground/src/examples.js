// The examples menu. Each example is a program and the scenario the Run pane starts
// with; the files are bundled as text (checkout and the retries example are the
// repository's own: examples/ and tests/golden/run/, so they cannot drift from what orbitc
// and orbit-run are tested with).
import checkout from '../../examples/checkout.orbit';
import checkoutScenario from '../../tests/golden/run/checkout.scenario.json';
import retries from '../examples/retries.orbit';
import retriesScenario from '../../tests/golden/run/retries_in_the_history.scenario.json';
import timeout from '../examples/timeout.orbit';
import timeoutScenario from '../examples/timeout.scenario.json';
import compensation from '../examples/compensation.orbit';
import compensationScenario from '../examples/compensation.scenario.json';

export const EXAMPLES = [
  { id: 'checkout', title: 'Checkout (examples/checkout.orbit)', source: checkout, scenario: checkoutScenario },
  {
    id: 'retries',
    title: 'Retries in the history (the documentation page)',
    source: retries,
    scenario: retriesScenario,
  },
  { id: 'timeout', title: 'A timeout that fires', source: timeout, scenario: timeoutScenario },
  { id: 'compensation', title: 'A compensation', source: compensation, scenario: compensationScenario },
];
