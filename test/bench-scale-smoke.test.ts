import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { testDatabase } from './helpers/harness.ts';

const root = new URL('..', import.meta.url).pathname;
// As test/bench-smoke.test.ts: the test command's own cluster on the PostgreSQL pass, else the embedded store.
const database = testDatabase === 'postgres' ? 'postgres' : 'sqlite';

interface ScaleReportFile {
  stores: Array<{
    database: string;
    runs: Array<{
      factor: number;
      bookmarks: number;
      seedSeconds: number;
      sizes: Record<string, { rows: number; tableBytes: number; indexBytes: number }>;
      results: Array<{ name: string; total: number; non2xx: number; errors: number; p99: number }>;
    }>;
    pgbench?: Array<{ statement: string; pipelined: boolean; rate: number; ours: number; fraction: number }>;
  }>;
}

test(`the bench's --scale 2 --quick on ${database}: the save at 1× and 2× data, the sizes${database === 'postgres' ? ', and pgbench beside it' : ''}`, {
  timeout: 120_000,
}, (t) => {
  const out = mkdtempSync(join(tmpdir(), 'sintonia-bench-scale-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const resultsFile = join(out, 'scale.json');
  // One path, one second each, pgbench one second per script: the harness end to end, not a measurement.
  const args = ['--scale', '2', '--quick', '--warmup', '0', '--duration', '1', '--paths', 'post bookmark'];
  args.push('--pgbench', '1', '--database', database, '--out', resultsFile);
  if (database === 'postgres') args.push('--database-url', process.env.TEST_DATABASE_URL ?? '');
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 110_000,
    env: { ...process.env, DATABASE_URL: '' },
  });
  assert.equal(run.status, 0, `bench --scale failed: ${run.stderr}`);
  assert.match(run.stdout, /scale 2× ===/);
  assert.match(
    run.stdout,
    /path\s+1× req\/s\s+1× p50\s+1× p99\s+2× req\/s\s+2× p50\s+2× p99\s+req\/s ratio\s+p99 ratio/,
  );
  assert.match(run.stdout, /table\s+rows\s+table MiB\s+indexes MiB/);

  const [store] = (JSON.parse(readFileSync(resultsFile, 'utf8')) as ScaleReportFile).stores;
  assert.equal(store?.database, database);
  assert.deepEqual(
    store?.runs.map((scaled) => [scaled.factor, scaled.bookmarks]),
    [
      [1, 1000],
      [2, 2000],
    ],
  );
  for (const scaled of store?.runs ?? []) {
    assert.equal(scaled.sizes.bookmarks?.rows, scaled.bookmarks, 'the store holds the set it says');
    assert.ok((scaled.sizes.bookmarks?.tableBytes ?? 0) > 0 && (scaled.sizes.bookmarks?.indexBytes ?? 0) > 0);
    assert.ok(scaled.seedSeconds >= 0);
    const [save] = scaled.results;
    assert.equal(save?.name, 'POST bookmark');
    assert.ok((save?.total ?? 0) > 0, `${scaled.factor}×: no save completed`);
    assert.equal((save?.non2xx ?? 1) + (save?.errors ?? 1), 0, `${scaled.factor}×: failed saves`);
  }
  if (database === 'postgres') {
    assert.match(run.stdout, /pgbench on the 2× database, same cluster:/);
    assert.deepEqual(
      store?.pgbench?.map((rate) => `${rate.statement} ${rate.pipelined}`),
      ['bookmark_save false', 'bookmark_save true', 'bookmark_find false', 'bookmark_find true'],
    );
    for (const rate of store?.pgbench ?? [])
      assert.ok(rate.rate > 0, `${rate.statement}: pgbench ran nothing`);
    const save = store?.pgbench?.[0];
    assert.ok((save?.ours ?? 0) > 0 && (save?.fraction ?? 0) > 0, 'our save beside pgbench');
  } else assert.equal(store?.pgbench, undefined, 'pgbench is PostgreSQL’s');
});
