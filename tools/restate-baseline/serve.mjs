// Serves the hand-written baseline (services.mjs) on 127.0.0.1:PORT and registers it with
// the server's admin API, as `orbit-restate serve` does the Orbit host's services.
//   node serve.mjs PORT ADMIN_URL WORKER_URL...
import http2 from 'node:http2';
import '../../hosts/restate/lib/compat.mjs';
import * as restate from '../../hosts/restate/node_modules/@restatedev/restate-sdk/dist/index.js';
import { baselineServices } from './services.mjs';

const [port, admin, ...workers] = process.argv.slice(2);
if (!port || !admin || workers.length === 0) {
  console.error('usage: serve.mjs PORT ADMIN_URL WORKER_URL...');
  process.exit(2);
}
// On loopback only, as every server of the benchmark.
const server = http2.createServer(restate.createEndpointHandler({ services: baselineServices(workers) }));
await new Promise((resolve) => server.listen(Number(port), '127.0.0.1', resolve));
const response = await fetch(`${admin}/deployments`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ uri: `http://127.0.0.1:${port}`, force: true }),
});
if (!response.ok) {
  console.error(`registering with ${admin}: ${response.status} ${await response.text()}`);
  process.exit(1);
}
console.log(`baseline: registered with ${admin} as deployment ${(await response.json()).id}`);
