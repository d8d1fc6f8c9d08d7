#!/usr/bin/env node
// Runs the compiled CLI in dist/ on plain Node. dist/ comes from `npm run build`, which `npm ci` runs
// (the `prepare` script) and `npm test` runs again before the tests.
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';

// package.json's engines, which npm checks only when it installs: a shell whose node is older than the one
// the install ran on gets this line rather than a driver built for another Node failing to load.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 12)) {
  process.stderr.write(
    `sintonia: needs Node.js 22.12 or later (26, the LTS line, in .nvmrc); this is ${process.version}. ` +
      'README, "Quick start": eval "$(scripts/node-lts.sh)"\n',
  );
  process.exit(1);
}

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
