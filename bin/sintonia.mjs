#!/usr/bin/env node
// Runs the compiled CLI in dist/ on plain Node. dist/ comes from `npm run build`, which `npm ci` runs
// (the `prepare` script) and `npm test` runs again before the tests.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// No V8 "pretenuring" (allocating straight into the old generation what one place in the code allocates,
// once many of its objects were seen to survive a young collection). Under the benchmark's load V8 took that
// decision for node-postgres' row objects, which live for one request: they then filled the old generation,
// each young collection took 2.1 ms instead of 0.6, and the device list spent 30 µs of its 130 in the
// collector. Set before anything else loads; docs/decisions-performance.md, "No pretenuring".
setFlagsFromString('--no-allocation-site-pretenuring');

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('sintonia: dist/ is not built; run `npm run build` (or `npm ci`) first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
