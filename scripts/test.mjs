#!/usr/bin/env node
// The test command: builds dist/, then every test on SQLite, then every database test again on a throwaway
// PostgreSQL cluster made from the machine's own server binaries. Prints which databases the run covered.
//
// Every process of the run records the statements the product issues (scripts/statement-capture.mjs, in
// $SINTONIA_CAPTURE_SQL: the caller's folder, or one made here), and the statement-plans test runs after
// the rest of each pass: it plans those too, so a statement that some test runs but queries/captured.*.sql
// lacks is checked for sequential scans all the same.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { postgresBin, startPostgres } from './pg-cluster.mjs';

const root = new URL('..', import.meta.url).pathname;
const only = process.argv.slice(2);

function findTests(dir) {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) return findTests(path);
    return entry.endsWith('.test.ts') ? [relative(root, path)] : [];
  });
}

const allTests = findTests(join(root, 'test'))
  .filter((file) => only.length === 0 || only.some((pattern) => file.includes(pattern)))
  .sort();
// test/unit needs no database: it runs once.
const databaseTests = allTests.filter((file) => !file.startsWith('test/unit/'));
/** Runs after the rest of its pass, to plan what the pass's tests issued. */
const PLANS = 'test/core/statement-plans.test.ts';

const ownCaptureDir = process.env.SINTONIA_CAPTURE_SQL
  ? undefined
  : mkdtempSync(join(tmpdir(), 'sintonia-sql-'));
const captureEnv = {
  SINTONIA_CAPTURE_SQL: process.env.SINTONIA_CAPTURE_SQL ?? ownCaptureDir,
  NODE_OPTIONS:
    `${process.env.NODE_OPTIONS ?? ''} --import ${join(root, 'scripts/statement-capture.mjs')}`.trim(),
};
process.on('exit', () => {
  if (ownCaptureDir) rmSync(ownCaptureDir, { recursive: true, force: true });
});

// Stopped (SIGTERM from a CI runner, SIGINT from a terminal), the run takes its test runner and its
// PostgreSQL cluster down with it instead of leaving them running as orphans.
let running;
let stopCluster = () => {};
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    running?.kill(signal);
    stopCluster();
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

/** The pass's files, the statement-plans test last (its own run of the runner), as one result. */
async function runPass(label, files, env) {
  const rest = await runNodeTests(
    label,
    files.filter((file) => file !== PLANS),
    env,
  );
  if (!files.includes(PLANS)) return rest;
  const plans = await runNodeTests(`${label}, statement plans`, [PLANS], env);
  return { label, pass: rest.pass + plans.pass, fail: rest.fail + plans.fail, code: rest.code || plans.code };
}

function runNodeTests(label, files, env) {
  if (files.length === 0) return Promise.resolve({ label, pass: 0, fail: 0, code: 0 });
  process.stdout.write(`\n=== ${label}: ${files.length} test files ===\n`);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        '--test-concurrency=3',
        // Per file: the slowest must finish on a busy machine: the bench's smoke run (about two minutes
        // on a loaded machine) and the slim install (packs, then installs the tarball, which
        // compiles better-sqlite3 when its prebuilt binary cannot be downloaded: minutes on a loaded machine).
        '--test-timeout=600000',
        '--test-reporter=spec',
        ...files,
      ],
      { cwd: root, env: { ...process.env, ...captureEnv, ...env }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    running = child;
    // The whole output: with many failures, their details follow the runner's summary lines.
    let output = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      output += chunk.toString();
    });
    child.on('close', (code) => {
      running = undefined;
      const count = (name) =>
        Number([...output.matchAll(new RegExp(`ℹ ${name} (\\d+)`, 'g'))].at(-1)?.[1] ?? 0);
      resolve({
        label,
        pass: count('pass'),
        fail: count('fail') + (code !== 0 && count('fail') === 0 ? 1 : 0),
        code,
      });
    });
  });
}

// The tests that run `sintonia` (bin/sintonia.mjs) run the compiled dist/: built here from the current
// sources, so that they never exercise a stale build. Emit only: the type check is `npm run typecheck`.
process.stdout.write('=== build: dist/ from src/ ===\n');
const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--no-check'], {
  cwd: root,
  stdio: 'inherit',
});
if (build.status !== 0) {
  process.stdout.write(
    '\n=== summary ===\nthe build of dist/ failed (above): no test ran\n0 passed, 1 failed\n',
  );
  process.exit(1);
}

const results = [];
results.push(await runPass('SQLite', allTests, { SINTONIA_TEST_DB: 'sqlite' }));
const covered = ['SQLite'];
// SINTONIA_TEST_SKIP_PG=1 is for quick local iterations only; CI never sets it.
const pgInfo = process.env.SINTONIA_TEST_SKIP_PG === '1' ? undefined : postgresBin();
if (pgInfo && databaseTests.length > 0) {
  const cluster = await startPostgres(pgInfo);
  stopCluster = () => cluster.stop();
  try {
    results.push(
      await runPass(`PostgreSQL ${pgInfo.version}`, databaseTests, {
        SINTONIA_TEST_DB: 'postgres',
        TEST_DATABASE_URL: cluster.url,
      }),
    );
    covered.push(`PostgreSQL ${pgInfo.version}`);
  } finally {
    cluster.stop();
  }
} else if (process.env.SINTONIA_TEST_SKIP_PG === '1') {
  process.stdout.write('\nSINTONIA_TEST_SKIP_PG=1: PostgreSQL NOT covered by this run.\n');
} else if (!pgInfo) {
  process.stdout.write(
    '\nPostgreSQL server binaries not found under /usr/lib/postgresql: PostgreSQL NOT covered.\n',
  );
}

const pass = results.reduce((sum, result) => sum + result.pass, 0);
const fail = results.reduce((sum, result) => sum + result.fail, 0);
process.stdout.write('\n=== summary ===\n');
for (const result of results)
  process.stdout.write(`${result.label}: ${result.pass} passed, ${result.fail} failed\n`);
process.stdout.write(`databases covered: ${covered.join(', ')}\n`);
process.stdout.write(`${pass} passed, ${fail} failed\n`);
process.exitCode = fail > 0 || results.some((result) => result.code !== 0) ? 1 : 0;
