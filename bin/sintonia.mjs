#!/usr/bin/env node
// Runs the compiled CLI in dist/ on plain Node. dist/ comes from `npm run build`, which `npm ci` runs
// (the `prepare` script) and `npm test` runs again before the tests.
import { existsSync } from 'node:fs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write('sintonia: dist/ is not built; run `npm run build` (or `npm ci`) first\n');
  process.exit(1);
}
const { main } = await import(entry.href);
process.exitCode = await main(process.argv.slice(2));
