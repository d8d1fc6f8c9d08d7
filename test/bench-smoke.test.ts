import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { testDatabase } from './helpers/harness.ts';

const root = new URL('..', import.meta.url).pathname;

interface QuickReport {
  settings: { quick: boolean };
  dataset: { users: number; devices: number; bookmarks: number };
  results: Array<{
    target: string;
    name: string;
    total: number;
    requestsPerSecond: number;
    non2xx: number;
    errors: number;
    timeouts: number;
    ratioToBare?: number;
    format: string;
    contentType: string;
  }>;
}

test('npm run bench -- --quick loads every path of both targets and writes its JSON', {
  // The benchmark always runs the embedded store: one run covers it.
  skip: testDatabase === 'postgres' ? 'the benchmark runs on the embedded store only' : false,
  timeout: 180_000,
}, (t) => {
  const out = mkdtempSync(join(tmpdir(), 'sintonia-bench-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const resultsFile = join(out, 'results', 'quick.json');
  const run = spawnSync('npm', ['run', '--silent', 'bench', '--', '--quick', '--out', resultsFile], {
    cwd: root,
    encoding: 'utf8',
    timeout: 170_000,
    env: { ...process.env, DATABASE_URL: '' },
  });
  assert.equal(run.status, 0, `bench failed: ${run.stderr}`);
  assert.match(run.stdout, /path\s+req\/s\s+p50 ms\s+p99 ms\s+vs bare/);

  const report = JSON.parse(readFileSync(resultsFile, 'utf8')) as QuickReport;
  assert.equal(report.settings.quick, true);
  assert.ok(report.dataset.bookmarks > 0 && report.dataset.devices > 0);
  const names = report.results.map((result) => `${result.target} ${result.name}`);
  for (const expected of ['bare bare read', 'bare bare upsert', 'bare bare device list'])
    assert.ok(names.includes(expected), `missing ${expected} in ${names.join(', ')}`);
  for (const result of report.results) {
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
});
