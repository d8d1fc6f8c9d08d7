import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { bootstrap, median, pooledRatios } from '../../bench/pool.ts';
import type { PathResult } from '../../bench/report.ts';

const run = (database: string, ...results: Array<Partial<PathResult>>) => ({
  stores: [{ database, http: { results: results as PathResult[] } }],
});

describe('pooling bench runs (bench/pool.ts)', () => {
  it('pools every round of a path across runs, per store, and leaves out the bare paths', () => {
    const pooled = pooledRatios([
      run('postgres', { name: 'bare read' }, { name: 'GET bookmark JSON', roundsRatioToBare: [0.8, 0.9] }),
      run('postgres', { name: 'GET bookmark JSON', roundsRatioToBare: [0.7] }),
      run('sqlite', { name: 'GET bookmark JSON', roundsRatioToBare: [1.0] }),
    ]);
    assert.deepEqual(
      [...pooled],
      [
        ['postgres: GET bookmark JSON', [0.8, 0.9, 0.7]],
        ['sqlite: GET bookmark JSON', [1.0]],
      ],
    );
  });

  it('takes the median of an odd and of an even count', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
  });

  it('gives an interval that holds the statistic, collapses on identical rounds and finds a shift', () => {
    const noisy = [0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1.0, 0.82, 0.88, 0.78];
    const [low, high] = bootstrap([noisy], median);
    assert.ok(low <= median(noisy) && median(noisy) <= high && low < high, `${low}–${high}`);
    assert.deepEqual(bootstrap([[0.85, 0.85, 0.85]], median), [0.85, 0.85]);
    const shifted = noisy.map((ratio) => ratio + 0.1);
    const [from, to] = bootstrap([noisy, shifted], (a, b) => median(b) - median(a));
    assert.ok(from < 0.1 && 0.1 < to, `${from}–${to}`);
    // The same samples always give the same interval (seeded draws).
    assert.deepEqual(bootstrap([noisy], median), [low, high]);
  });

  it('refuses, with exit 2 and one line, a file that is not a bench run and a call without files', () => {
    const pool = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', 'bench/pool.ts', ...args], {
        cwd: new URL('../..', import.meta.url).pathname,
        encoding: 'utf8',
      });
    const missing = pool('/nonexistent/run.json');
    assert.equal(missing.status, 2);
    assert.match(
      missing.stderr,
      /^bench\/pool\.ts: \/nonexistent\/run\.json is not a bench run's JSON \(ENOENT/,
    );
    const none = pool();
    assert.equal(none.status, 2);
    assert.match(none.stderr, /^usage: node --import tsx bench\/pool\.ts/);
  });
});
