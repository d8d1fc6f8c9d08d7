#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ with tsc (tsconfig.build.json: relative `.ts` imports are
// rewritten to `.js`), for `node bin/sintonia.mjs`. `npm ci` runs it (the `prepare` script), and so does
// `node scripts/test.mjs` before the tests, with --no-check (emit only: a syntax error still fails, types
// are `npm run typecheck`'s job).
//
// The output is compiled aside (under .tmp/) and swapped in whole: a `sintonia` started meanwhile by
// another test run in this tree never finds dist/ missing or half written, and dist/ never keeps the
// output of a deleted source (a removed migration would otherwise still be applied).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const noCheck = process.argv.includes('--no-check');

let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  process.stderr.write('build: TypeScript is not installed; run `npm ci` (with the dev dependencies)\n');
  process.exit(1);
}

mkdirSync(join(root, '.tmp'), { recursive: true });
const output = mkdtempSync(join(root, '.tmp', 'dist-'));
const result = spawnSync(
  process.execPath,
  [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', output, ...(noCheck ? ['--noCheck'] : [])],
  { cwd: root, stdio: 'inherit' },
);
if (result.status !== 0) {
  rmSync(output, { recursive: true, force: true });
  process.stderr.write(`build: tsc failed (exit ${result.status ?? result.signal}); dist/ left as it was\n`);
  process.exit(1);
}

// Two builds may finish together: whichever renames last wins, and each removes only its own leftovers.
const leftovers = [];
for (let attempt = 0; ; attempt++) {
  const previous = `${output}-previous-${attempt}`;
  try {
    renameSync(dist, previous);
    leftovers.push(previous);
  } catch (error) {
    if (error.code !== 'ENOENT') throw error;
  }
  try {
    renameSync(output, dist);
    break;
  } catch (error) {
    if (!['ENOTEMPTY', 'EEXIST'].includes(error.code) || attempt >= 10) throw error;
  }
}
for (const leftover of leftovers) rmSync(leftover, { recursive: true, force: true });
