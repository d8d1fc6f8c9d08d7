import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChannelResult } from '../../bench/channel.ts';
import { channelGoals, comparisons, type GoalCheck, httpGoals } from '../../bench/goals.ts';
import {
  addRatios,
  formatComparison,
  formatGoals,
  medianRounds,
  type PathResult,
} from '../../bench/report.ts';

function result(
  target: 'bare' | 'sintonia',
  name: string,
  format: 'json' | 'bson',
  rps: number,
  failures = 0,
) {
  return {
    target,
    name,
    operation: 'read',
    format,
    contentType: `application/${format}`,
    serverCpuUsPerRequest: 50,
    requestsPerSecond: rps,
    p50: 1,
    p99: rps / 100,
    average: 1,
    total: rps * 10,
    warmupTotal: 0,
    errors: failures,
    timeouts: 0,
    non2xx: failures,
    statusCodes: { 200: rps * 10 },
  } as PathResult;
}

describe('bench rounds', () => {
  it("reports each path's median round, with ratios taken within rounds and failures of every round", () => {
    const rounds = [
      [
        result('bare', 'read', 'json', 1000),
        result('sintonia', 'JSON', 'json', 900),
        result('sintonia', 'BSON', 'bson', 450),
      ],
      [
        result('bare', 'read', 'json', 2000),
        result('sintonia', 'JSON', 'json', 1000),
        result('sintonia', 'BSON', 'bson', 900, 2),
      ],
      [
        result('bare', 'read', 'json', 1500),
        result('sintonia', 'JSON', 'json', 1200),
        result('sintonia', 'BSON', 'bson', 1200),
      ],
    ];
    for (const round of rounds) addRatios(round);
    const [bare, json, bson] = medianRounds(rounds);
    assert.equal(bare?.requestsPerSecond, 1500);
    assert.deepEqual(bare?.roundsRequestsPerSecond, [1000, 2000, 1500]);
    assert.equal(bare?.ratioToBare, undefined);
    assert.equal(json?.requestsPerSecond, 1000);
    assert.equal(json?.p99, 10, 'the other figures are those of the median round');
    // 0.9, 0.5 and 0.8 in the rounds: the median of the ratios, not the ratio of the medians (1000/1500).
    assert.deepEqual(json?.roundsRatioToBare, [0.9, 0.5, 0.8]);
    assert.equal(json?.ratioToBare, 0.8);
    assert.deepEqual(bson?.roundsRatioToJson, [0.5, 0.9, 1]);
    assert.equal(bson?.ratioToJson, 0.9);
    assert.equal(bson?.non2xx, 2, 'a failure in a round that is not the median still shows');
    assert.equal(bson?.errors, 2);
  });

  it('with one round, gives that round', () => {
    const round = [result('bare', 'read', 'json', 1000), result('sintonia', 'JSON', 'json', 700)];
    addRatios(round);
    const [, json] = medianRounds([round]);
    assert.equal(json?.requestsPerSecond, 700);
    assert.equal(json?.ratioToBare, 0.7);
  });
});

function path(
  target: 'bare' | 'sintonia',
  name: string,
  operation: 'read' | 'write',
  rps: number,
  p99: number,
) {
  return { ...result(target, name, 'json', rps), operation, p99 } as PathResult;
}

function channel(overrides: {
  median?: number;
  cpuShare?: number;
  rssPerStreamKiB?: number;
  openAtEnd?: number;
}) {
  return {
    crossProcess: true,
    latencyMs: { samples: [], median: overrides.median ?? 40, p95: 60, max: 70 },
    idle: {
      streams: 2000,
      opened: 2000,
      openAtEnd: overrides.openAtEnd ?? 2000,
      keepAlivesMin: 2,
      keepAlivesMax: 2,
      makeSeconds: 8,
      openSeconds: 5,
      windowSeconds: 30,
      rssBeforeKiB: 100_000,
      rssAfterKiB: 120_000,
      rssPerStreamKiB: overrides.rssPerStreamKiB ?? 10,
      cpuShare: overrides.cpuShare ?? 0.01,
    },
  } satisfies ChannelResult;
}

describe('bench targets', () => {
  const run = (readRps: number, readP99: number, saveRps: number, saveP99: number) => [
    path('bare', 'bare read', 'read', 1000, 4),
    path('bare', 'bare upsert', 'write', 1000, 5),
    path('sintonia', 'GET bookmark JSON', 'read', readRps, readP99),
    path('sintonia', 'POST bookmark', 'write', saveRps, saveP99),
  ];
  const verdicts = (checks: GoalCheck[]) => checks.map((check) => [check.goal, check.met]);

  it('pairs each JSON path of ours with the bare path of its operation', () => {
    const pairs = comparisons([
      ...run(800, 3, 900, 6),
      { ...path('sintonia', 'GET bookmark XML', 'read', 1, 1), format: 'xml' },
    ]);
    assert.deepEqual(
      pairs.map((pair) => [pair.path, pair.bare.name]),
      [
        ['GET bookmark JSON', 'bare read'],
        ['POST bookmark', 'bare upsert'],
      ],
    );
    assert.match(formatComparison(pairs), /GET bookmark JSON vs bare read\s+800\s+1000\s+0\.80×\s+3\s+4/);
  });

  it('PostgreSQL: read ≥ 0.7× bare, save ≥ 0.8× bare, read p99 ≤ 10 ms, each at its boundary', () => {
    assert.deepEqual(verdicts(httpGoals('postgres', run(700, 10, 800, 50))), [
      ['authenticated read req/s ≥ 0.7× bare', true],
      ['save req/s ≥ 0.8× bare', true],
      ['authenticated read p99 ≤ 10 ms', true],
    ]);
    assert.deepEqual(
      httpGoals('postgres', run(699, 11, 799, 5)).map((check) => check.met),
      [false, false, false],
    );
  });

  it("SQLite: read ≥ 0.85×, save ≥ 0.9×, the save's p99 at most twice the bare upsert's", () => {
    const met = httpGoals('sqlite', run(850, 100, 900, 10));
    assert.deepEqual(verdicts(met), [
      ['authenticated read req/s ≥ 0.85× bare', true],
      ['save req/s ≥ 0.9× bare', true],
      ['save p99 ≤ 2× bare upsert p99', true],
    ]);
    assert.equal(met[2]?.measured, '10 ms vs 5 ms');
    assert.deepEqual(
      httpGoals('sqlite', run(849, 1, 899, 11)).map((check) => check.met),
      [false, false, false],
    );
  });

  it('a target whose paths were not loaded says so instead of a verdict', () => {
    const checks = httpGoals('postgres', run(800, 3, 900, 6).slice(0, 1));
    assert.deepEqual(
      checks.map((check) => [check.met, check.measured]),
      [
        [undefined, 'not measured'],
        [undefined, 'not measured'],
        [undefined, 'not measured'],
      ],
    );
    assert.match(formatGoals(checks), /^ {3}- {5}authenticated read/);
  });

  it('channel: median answer ≤ 250 ms, idle streams ≤ 5% of a core and ≤ 64 KiB each, none dropped', () => {
    assert.deepEqual(
      channelGoals(channel({ median: 250, cpuShare: 0.05, rssPerStreamKiB: 64 })).map((check) => check.met),
      [true, true, true, true],
    );
    const missed = channelGoals(
      channel({ median: 251, cpuShare: 0.051, rssPerStreamKiB: 64.1, openAtEnd: 1999 }),
    );
    assert.deepEqual(
      missed.map((check) => check.met),
      [false, false, false, false],
    );
    assert.match(
      formatGoals(missed),
      /NOT MET {2}answer reaches a stream on another process: median ≤ 250 ms\s+251 ms/,
    );
    assert.match(formatGoals(missed), /none dropped\s+1999\/2000 open/);
  });
});
