import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { testDatabase } from './helpers/harness.ts';

const root = new URL('..', import.meta.url).pathname;

interface QuickReport {
  settings: { quick: boolean; databases: string[] };
  dataset: { users: number; devices: number; bookmarks: number };
  stores: Array<{
    database: string;
    http?: {
      results: Array<{
        target: string;
        name: string;
        total: number;
        non2xx: number;
        errors: number;
        timeouts: number;
        ratioToBare?: number;
        format: string;
        contentType: string;
      }>;
    };
    channel?: {
      crossProcess: boolean;
      latencyMs: { samples: number[]; median: number };
      idle: {
        streams: number;
        opened: number;
        openAtEnd: number;
        keepAlivesMin: number;
        cpuShare: number;
        rssPerStreamKiB: number;
      };
    };
    goals: Array<{ goal: string; measured: string; met: boolean | undefined }>;
  }>;
}

// On the PostgreSQL pass the bench runs against the test command's cluster (TEST_DATABASE_URL), in
// databases of its own; on the SQLite pass, on the embedded store.
const database = testDatabase === 'postgres' ? 'postgres' : 'sqlite';

test(`the bench harness, --quick on ${database}: every path of both targets, the channel, the targets' verdicts and the JSON`, {
  timeout: 180_000,
}, (t) => {
  const out = mkdtempSync(join(tmpdir(), 'sintonia-bench-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const resultsFile = join(out, 'results', 'quick.json');
  const args = ['--quick', '--skip-codecs', '--database', database, '--out', resultsFile];
  if (database === 'postgres') args.push('--database-url', process.env.TEST_DATABASE_URL ?? '');
  // The harness itself, not `npm run bench`: the test command has just built dist/ from these sources, and a
  // second build would spend a third of this test's time.
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], {
    cwd: root,
    encoding: 'utf8',
    timeout: 170_000,
    env: { ...process.env, DATABASE_URL: '' },
  });
  assert.equal(run.status, 0, `bench failed: ${run.stderr}`);
  assert.match(run.stdout, /path\s+req\/s\s+p50 ms\s+p99 ms\s+vs bare/);
  assert.match(run.stdout, /path\s+ours req\/s\s+bare req\/s\s+ratio\s+ours p99 ms\s+bare p99 ms/);
  assert.match(run.stdout, /answer latency .*: median [\d.]+ ms, p95 [\d.]+ ms/);
  assert.match(run.stdout, /targets ===\n/);

  const report = JSON.parse(readFileSync(resultsFile, 'utf8')) as QuickReport;
  assert.equal(report.settings.quick, true);
  assert.deepEqual(report.settings.databases, [database]);
  assert.ok(report.dataset.bookmarks > 0 && report.dataset.devices > 0);
  const [store] = report.stores;
  assert.equal(store?.database, database);

  const results = store?.http?.results ?? [];
  const names = results.map((result) => `${result.target} ${result.name}`);
  for (const expected of [
    'bare bare read',
    'bare bare upsert',
    'bare bare device list',
    'sintonia GET bookmark JSON',
    'sintonia POST bookmark',
  ])
    assert.ok(names.includes(expected), `missing ${expected} in ${names.join(', ')}`);
  for (const result of results) {
    assert.ok(result.total > 0, `${result.name}: no request completed`);
    assert.equal(result.non2xx, 0, `${result.target} ${result.name}: non-2xx answers`);
    assert.equal(result.errors + result.timeouts, 0, `${result.target} ${result.name}: errors`);
    if (result.target !== 'bare') assert.ok((result.ratioToBare ?? 0) > 0, `${result.name}: no ratio`);
    // Each format row measured that format: the server answered in the media type asked for.
    if (result.target !== 'bare')
      assert.ok(
        result.contentType.startsWith(`application/${result.format}`),
        `${result.name}: ${result.contentType}`,
      );
  }

  const channel = store?.channel;
  assert.ok(channel, 'no channel figures');
  assert.equal(channel.crossProcess, database === 'postgres');
  assert.equal(channel.latencyMs.samples.length, 3);
  assert.ok(channel.latencyMs.median > 0);
  assert.equal(channel.idle.opened, channel.idle.streams);
  // The quick run's idle window is two keep-alive rounds of 1 s: every stream saw one and stayed open.
  assert.ok(channel.idle.keepAlivesMin >= 1, `a stream got no keep-alive: ${JSON.stringify(channel.idle)}`);
  assert.equal(channel.idle.openAtEnd, channel.idle.streams, 'a stream was dropped');
  assert.ok(Number.isFinite(channel.idle.cpuShare) && Number.isFinite(channel.idle.rssPerStreamKiB));

  // One verdict per target: three for the HTTP paths, four for the channel; each met or not.
  assert.equal(store?.goals.length, 7, JSON.stringify(store?.goals));
  for (const goal of store?.goals ?? []) assert.equal(typeof goal.met, 'boolean', goal.goal);
});
