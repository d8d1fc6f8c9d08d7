import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { PathResult } from '../bench/http-bench.ts';
import type { PgbenchRate } from '../bench/pgbench.ts';
import type { FloorCheck } from '../bench/report.ts';
import type { ScaleRun } from '../bench/scale.ts';
import type { StreamResult } from '../bench/streams.ts';
import { testDatabase } from './helpers/harness.ts';

const root = new URL('..', import.meta.url).pathname;
// On the PostgreSQL pass, the test command's own cluster (databases of the bench's own in it); else SQLite.
const database = testDatabase === 'postgres' ? 'postgres' : 'sqlite';

interface Report {
  stores: Array<{
    database: string;
    http?: { results: PathResult[]; pgbench?: PgbenchRate[] };
    channel?: StreamResult;
    commands?: StreamResult;
    scale?: ScaleRun[];
    floors: FloorCheck[];
  }>;
  codecs?: Array<Record<string, string | number>>;
}

test(`npm run bench -- --quick --scale 2 on ${database}: every part runs end to end and says what it measured`, {
  timeout: 600_000,
}, (t) => {
  const out = mkdtempSync(join(tmpdir(), 'sintonia-bench-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const file = join(out, 'quick.json');
  const args = ['--quick', '--scale', '2', '--database', database, '--out', file];
  if (database === 'postgres') args.push('--database-url', process.env.TEST_DATABASE_URL ?? '');
  // The bench itself, not `npm run bench`: the test command has just built dist/ from these sources.
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 590_000,
    env: { ...process.env, DATABASE_URL: '' },
  });
  assert.equal(run.status, 0, `the bench failed: ${run.stderr.slice(-4000)}`);
  for (const part of ['HTTP', 'channel', 'command streams', 'scale 2×', 'floors'])
    assert.match(run.stdout, new RegExp(`=== .*: ${part}`), `no ${part} section`);

  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  const [store] = report.stores;
  assert.equal(store?.database, database);

  const results = store?.http?.results ?? [];
  assert.deepEqual(
    results.map((result) => `${result.target} ${result.name}`),
    [
      'bare bare read',
      'sintonia GET bookmark JSON',
      'sintonia GET bookmark BSON',
      'sintonia GET bookmark UBJSON',
      'sintonia GET bookmark XML',
      'bare bare upsert',
      'sintonia POST bookmark',
      'sintonia report (PUT playback, then POST)',
      'bare bare device list',
      'sintonia GET devices (20)',
    ],
  );
  for (const result of results) {
    assert.ok(result.total > 0, `${result.name}: no request completed`);
    assert.equal(result.non2xx, 0, `${result.target} ${result.name}: non-2xx answers`);
    // A loaded machine may time a few requests out; a broken path answers none.
    assert.ok(result.errors < result.total, `${result.target} ${result.name}: ${result.errors} errors`);
    if (result.target === 'sintonia')
      assert.ok((result.ratioToBare ?? 0) > 0, `${result.name}: no ratio to bare`);
    if (result.format !== 'json')
      assert.ok((result.ratioToJson ?? 0) > 0, `${result.name}: no ratio to JSON`);
  }
  if (database === 'postgres') {
    const rates = store?.http?.pgbench ?? [];
    assert.deepEqual(
      rates.map((rate) => rate.statement),
      ['read', 'upsert'],
    );
    for (const rate of rates) assert.ok(rate.rate > 0, `pgbench ran no ${rate.statement}`);
  } else assert.equal(store?.http?.pgbench, undefined, 'pgbench is PostgreSQL’s');

  // Each stream part: its events timed, crossing processes on PostgreSQL; it idles two keep-alive rounds
  // of 1 s, so every stream saw one and stayed open.
  for (const part of [store?.channel, store?.commands]) {
    assert.equal(part?.crossProcess, database === 'postgres');
    assert.equal(part?.latencyMs.samples.length, 3);
    assert.ok(
      (part?.idle.keepAlivesMin ?? 0) >= 1,
      `a stream got no keep-alive: ${JSON.stringify(part?.idle)}`,
    );
    assert.equal(part?.idle.openAtEnd, part?.idle.streams, `a ${part?.noun} stream was dropped`);
  }

  assert.deepEqual(
    store?.scale?.map((run) => [run.factor, run.shape.users]),
    [
      [1, 20],
      [2, 40],
    ],
  );
  for (const run of store?.scale ?? []) {
    assert.equal(run.results.length, 3, `${run.factor}×: the read, the save and the device list`);
    for (const result of run.results)
      assert.ok(
        result.total > result.errors && result.non2xx === 0,
        `${run.factor}×: ${JSON.stringify(result)}`,
      );
  }

  // A verdict for every floor this run could check: 2 or 3 ratios to bare, 3 formats, pgbench's on
  // PostgreSQL, the report against the save, 4 of each stream part, 2 per path at scale.
  const expected = database === 'postgres' ? 3 + 3 + 1 + 1 + 8 + 6 : 2 + 3 + 1 + 8 + 6;
  assert.equal(store?.floors.length, expected, JSON.stringify(store?.floors));
  for (const floor of store?.floors ?? [])
    assert.notEqual(floor.verdict, '-', `${floor.floor}: not measured`);
  assert.deepEqual(
    report.codecs?.map((row) => row.format),
    [
      'application/json',
      'application/bson',
      'application/ubjson',
      'application/xml',
      'ubjson (@shelacek, reference)',
    ],
  );
});
