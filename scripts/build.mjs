#!/usr/bin/env node
// `npm run build`: compiles src/ to dist/ with tsc (tsconfig.build.json: relative `.ts` imports are
// rewritten to `.js`), for `node bin/sintonia.mjs`, and copies the chat page's Web Chat bundle into
// dist/webchat/ (see webChatBundle below). `npm ci` runs it (the `prepare` script), and so does
// `node scripts/test.mjs` before the tests, with --no-check (emit only: a syntax error still fails, types
// are `npm run typecheck`'s job).
//
// The output is compiled aside (under .tmp/) and swapped in whole: a `sintonia` started meanwhile by
// another test run in this tree never finds dist/ missing or half written, and dist/ never keeps the
// output of a deleted source (a removed migration would otherwise still be applied).
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const noCheck = process.argv.includes('--no-check');
const require = createRequire(import.meta.url);

function fail(message) {
  process.stderr.write(`build: ${message}\n`);
  process.exit(1);
}

let tsc;
try {
  tsc = require.resolve('typescript/bin/tsc');
} catch {
  fail('TypeScript is not installed; run `npm ci` (with the dev dependencies)');
}

/**
 * The chat page serves Microsoft's stock Web Chat bundle, dist/webchat.js of botframework-webchat (a dev
 * dependency: its 150 MB tree stays out of the production install), with the licence notice the bundle's
 * first line names. Both are copied into dist/webchat/ beside webchat.json, which records the package's
 * version (the bundle's name on the page); src/assistant-auth/chat-page/assets.ts reads them there.
 */
function webChatBundle(into) {
  let folder;
  try {
    folder = dirname(require.resolve('botframework-webchat'));
  } catch {
    throw new Error('botframework-webchat is not installed; run `npm ci` (with the dev dependencies)');
  }
  // The package exports no package.json: look for it above its entry point.
  for (let depth = 0; ; depth++) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
      if (manifest.name === 'botframework-webchat') {
        mkdirSync(into);
        for (const file of ['webchat.js', 'webchat.js.LICENSE.txt']) {
          copyFileSync(join(folder, 'dist', file), join(into, file));
        }
        const { name, version, license } = manifest;
        writeFileSync(join(into, 'webchat.json'), `${JSON.stringify({ name, version, license })}\n`);
        return;
      }
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    if (depth >= 4) throw new Error(`botframework-webchat's package.json not found above ${folder}`);
    folder = dirname(folder);
  }
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
  fail(`tsc failed (exit ${result.status ?? result.signal}); dist/ left as it was`);
}
try {
  webChatBundle(join(output, 'webchat'));
} catch (error) {
  rmSync(output, { recursive: true, force: true });
  fail(`${error.message}; dist/ left as it was`);
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
